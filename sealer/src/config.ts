import { readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { loadSigningKey } from "./c2pa/cose.ts";
import { ensureLocalPki } from "./pki/ensure-local-pki.ts";
import { httpAuthority, opensslAuthority, type TimestampAuthority } from "./tsa/authority.ts";

export interface SealerConfig {
  port: number;
  secret: string;
  /** Bytes of original files held at once (SEALER_MEMORY_BUDGET_MB): about a third of the memory. */
  memoryBudgetBytes: number;
  c2pa: { keyPem: string; chainDer: Uint8Array[]; trustAnchorPem: string };
  /** Test-mode proofs: the simulated authority (its tokens prove nothing and say so). */
  testAuthority: TimestampAuthority;
  /** Live proofs: the configured authority. */
  liveAuthority: TimestampAuthority;
}

const pemCertificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/**
 * Configuration from the environment. Locally everything comes from PKI_DIR (made by `npm run dev`);
 * in production the C2PA key and chain come from secrets and TSA_URL names a real authority. The
 * simulated authority of test proofs always uses PKI_DIR, created on first start when missing (in a
 * container: a fresh one per instance, which is fine since every test proof publishes its own chain).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): SealerConfig {
  const pkiDir = ensureLocalPki(env.PKI_DIR ?? ".local/pki");
  const file = (name: string) => readFileSync(join(pkiDir, name), "utf8");
  const chainPem = env.C2PA_CERT_CHAIN_PEM ?? file("c2pa-signer.pem");
  const liveAuthority = env.TSA_URL
    ? httpAuthority(env.TSA_URL, env.TSA_NAME ?? new URL(env.TSA_URL).host, env.TSA_CHAIN_PEM ?? "", env.TSA_QUALIFIED_CERTS_PEM ?? "")
    : opensslAuthority(pkiDir, "tsa-live", "Local Timestamp Authority");
  return {
    port: Number(env.SEALER_PORT ?? 8788),
    secret: env.SEALER_SECRET ?? "",
    memoryBudgetBytes: Number(env.SEALER_MEMORY_BUDGET_MB ?? 1024) * 1024 * 1024,
    c2pa: {
      keyPem: env.C2PA_SIGNING_KEY_PEM ?? file("c2pa-signer.pk8"),
      chainDer: pemCertificates(chainPem).map((pem) => new Uint8Array(new X509Certificate(pem).raw)),
      trustAnchorPem: env.C2PA_TRUST_ANCHOR_PEM ?? file("c2pa-root.pem"),
    },
    testAuthority: opensslAuthority(pkiDir, "tsa-test", "Simulated TSA (test mode, no legal value)"),
    liveAuthority,
  };
}

export function signingKey(config: SealerConfig) {
  return loadSigningKey(config.c2pa.keyPem);
}
