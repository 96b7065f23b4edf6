import type { Env } from "../env.ts";

/**
 * The sealer's own configuration, set as Worker secrets and variables and handed to its container. The
 * public certificate chains are not among them: they are files of the sealer image (sealer/certs), since
 * a secret holds at most 5 KB.
 */
export const SEALER_CONFIGURATION = [
  "C2PA_SIGNING_KEY_PEM",
  "C2PA_TEST_SIGNING_KEY_PEM",
  "PROOF_SEAL_KEY_PEM",
  "PROOF_SEAL_TEST_KEY_PEM",
  "TSA_URL",
  "TSA_NAME",
  "TSA_SIGNATURE_URL",
  "TSA_SIGNATURE_NAME",
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
