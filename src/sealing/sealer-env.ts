import type { Env } from "../env.ts";

/** The sealer's own configuration, set as Worker secrets and variables and handed to its container. */
export const SEALER_CONFIGURATION = [
  "C2PA_SIGNING_KEY_PEM",
  "C2PA_CERT_CHAIN_PEM",
  "C2PA_TRUST_ANCHOR_PEM",
  "TSA_URL",
  "TSA_NAME",
  "TSA_CHAIN_PEM",
  "TSA_QUALIFIED_CERTS_PEM",
  "SEALER_MEMORY_BUDGET_MB",
] as const;

/**
 * The environment the sealer container starts with: its port, the shared secret, and whichever of its
 * settings the Worker has. Without them a container would seal live proofs with the local stand-in
 * authority and key, so every one that is set must reach it.
 */
export function sealerEnvVars(env: Env): Record<string, string> {
  const vars: Record<string, string> = { SEALER_PORT: "8788", SEALER_SECRET: env.SEALER_SECRET ?? "" };
  for (const name of SEALER_CONFIGURATION) {
    const value = env[name];
    if (typeof value === "string" && value !== "") vars[name] = value;
  }
  return vars;
}
