import packageJson from "../../package.json" with { type: "json" };
import type { Env } from "../env.ts";

export function buildInfo(env: Env): { version: string; commit: string } {
  return { version: packageJson.version, commit: env.BUILD_COMMIT || "unknown" };
}
