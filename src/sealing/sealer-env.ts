import type { Env } from "../env.ts";
import { SEALER_SETTINGS } from "../../shared/sealer-settings.ts";

/**
 * The environment the sealer container starts with: its port, the shared secret, and whichever of its
 * settings the Worker has. Without them a container would seal live proofs with the local stand-in
 * authority and key, so every one that is set must reach it.
 */
export function sealerEnvVars(env: Env): Record<string, string> {
  const vars: Record<string, string> = { SEALER_PORT: "8788", SEALER_SECRET: env.SEALER_SECRET ?? "" };
  for (const name of SEALER_SETTINGS) {
    const value = env[name];
    if (typeof value === "string" && value !== "") vars[name] = value;
  }
  return vars;
}
