import { readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { loadSigningKey } from "./c2pa/cose.ts";
import { ensureLocalPki } from "./pki/ensure-local-pki.ts";
import { httpAuthority, opensslAuthority, type TimestampAuthority } from "./tsa/authority.ts";
import { assertStartupConfiguration, CERTIFICATE_FILES, pemCertificates, readCertificateFile } from "./startup-check.ts";

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

/** Where the public certificates are: files built into the image (sealer/certs/README.md). */
const DEFAULT_CERTS_DIR = "sealer/certs";

/**
 * Configuration from the environment. Locally everything comes from PKI_DIR (made by `npm run dev`);
 * in production the C2PA key comes from a secret, TSA_URL names a real authority, and the certificate
 * chains are files of the image (too large for a 5 KB secret). The startup check refuses a configuration
 * missing one of them, naming it. The simulated authority of test proofs always uses PKI_DIR, created on
 * first start when missing (in a container: a fresh one per instance, which is fine since every test
 * proof publishes its own chain).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): SealerConfig {
  const certsDir = env.SEALER_CERTS_DIR ?? DEFAULT_CERTS_DIR;
  assertStartupConfiguration(env, certsDir);
  const pkiDir = ensureLocalPki(env.PKI_DIR ?? ".local/pki");
  const file = (name: string) => readFileSync(join(pkiDir, name), "utf8");
  const certificate = (name: string) => readCertificateFile(certsDir, name);
  const productionKey = env.C2PA_SIGNING_KEY_PEM ? env.C2PA_SIGNING_KEY_PEM : undefined;
  const chainPem = productionKey ? certificate(CERTIFICATE_FILES.c2paChain) : file("c2pa-signer.pem");
  const liveAuthority = env.TSA_URL
    ? httpAuthority(
        env.TSA_URL,
        env.TSA_NAME || new URL(env.TSA_URL).host,
        certificate(CERTIFICATE_FILES.tsaChain),
        certificate(CERTIFICATE_FILES.tsaQualifiedCerts),
      )
    : opensslAuthority(pkiDir, "tsa-live", "Local Timestamp Authority");
  return {
    port: Number(env.SEALER_PORT ?? 8788),
    secret: env.SEALER_SECRET ?? "",
    memoryBudgetBytes: Number(env.SEALER_MEMORY_BUDGET_MB ?? 1024) * 1024 * 1024,
    c2pa: {
      keyPem: productionKey ?? file("c2pa-signer.pk8"),
      chainDer: pemCertificates(chainPem).map((pem) => new Uint8Array(new X509Certificate(pem).raw)),
      trustAnchorPem: productionKey ? certificate(CERTIFICATE_FILES.c2paTrustAnchor) : file("c2pa-root.pem"),
    },
    testAuthority: opensslAuthority(pkiDir, "tsa-test", "Simulated TSA (test mode, no legal value)"),
    liveAuthority,
  };
}

export function signingKey(config: SealerConfig) {
  return loadSigningKey(config.c2pa.keyPem);
}
