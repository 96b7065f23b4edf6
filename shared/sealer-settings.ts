/**
 * The sealer's own settings: set as Worker secrets and variables, handed by the Worker to the sealer's container
 * (src/sealing/sealer-env.ts) and checked by the sealer before it starts (sealer/src/startup-check.ts). One list,
 * so that a setting the sealer reads can never be one the Worker forgets to pass on. The public certificate
 * chains are not among them: they are files of the sealer image (sealer/certs), since a secret holds at most 5 KB.
 */
export const SEALER_SETTINGS = [
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
