import { Container } from "@cloudflare/containers";
import type { Env } from "../env.ts";
import { sealerEnvVars } from "./sealer-env.ts";

/**
 * The sealer as a Cloudflare Container (production). Locally `npm run dev` runs the same program as a
 * plain Node process and the Worker reaches it through SEALER_URL instead (no Docker needed).
 */
export class SealerContainer extends Container<Env> {
  override defaultPort = 8788;
  override sleepAfter = "10m";
  override envVars = sealerEnvVars(this.env);
}
