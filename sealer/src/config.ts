import { readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { loadSigningKey } from "./c2pa/cose.ts";
import { ensureLocalPki, LOCAL_PROOF_SEALS } from "./pki/ensure-local-pki.ts";
import { sealIdentity, type SealIdentity } from "./seal/seal-identity.ts";
import { httpAuthority, type TimestampAuthority } from "./tsa/authority.ts";
import { simulatedAuthority } from "./tsa/simulated-authority.ts";
import { crlSource, type CrlSource } from "./revocation/crl-source.ts";
import { assertStartupConfiguration, CERTIFICATE_FILES, pemCertificates, readCertificateFile } from "./startup-check.ts";

export interface SealerConfig {
  port: number;
  secret: string;
  /** Bytes of original files held at once (SEALER_MEMORY_BUDGET_MB): about a third of the memory. */
  memoryBudgetBytes: number;
  /** Live proofs and test proofs are signed by different identities under different roots (ADR 0018). */
  c2pa: Record<"live" | "test", C2paIdentity>;
  /**
   * The proof seal of each mode (manifest.p7s): a key of its own, issued by the same root as that mode's
   * C2PA signer (docs/adr/0027).
   */
  seal: Record<"live" | "test", SealIdentity>;
  /** Test-mode proofs: the simulated authority (its tokens prove nothing and say so). */
  testAuthority: TimestampAuthority;
  /** Live proofs: the configured authority, which timestamps each proof's manifest. */
  liveAuthority: TimestampAuthority;
  /**
   * Live proofs: the authority of each file's C2PA signature timestamp (TSA_SIGNATURE_URL), so that the
   * qualified one is paid once per proof (docs/adr/0020); without it, `liveAuthority` (one request per
   * file and one for the manifest).
   */
  liveSignatureAuthority: TimestampAuthority;
  /**
   * CRLs of both chains captured at sealing: fetched from the URL each certificate names (with a time
   * limit, kept until their nextUpdate); the local PKI's from PKI_DIR (docs/adr/0022).
   */
  crls: CrlSource;
}

export interface C2paIdentity {
  keyPem: string;
  chainDer: Uint8Array[];
  trustAnchorPem: string;
}

/** Where the public certificates are: files built into the image (sealer/certs/README.md). */
const DEFAULT_CERTS_DIR = "sealer/certs";

/**
 * Configuration from the environment. Locally everything comes from PKI_DIR (made by `npm run dev`);
 * in production the live and test C2PA keys and proof seal keys come from secrets, TSA_URL names a real authority, and the certificate
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
  const derChain = (pem: string) => pemCertificates(pem).map((one) => new Uint8Array(new X509Certificate(one).raw));
  const identity = (productionKey: string | undefined, chainFile: string, anchorFile: string, localName: string): C2paIdentity =>
    productionKey
      ? { keyPem: productionKey, chainDer: derChain(certificate(chainFile)), trustAnchorPem: certificate(anchorFile) }
      : { keyPem: file(`${localName}-signer.pk8`), chainDer: derChain(file(`${localName}-signer.pem`)), trustAnchorPem: file(`${localName}-root.pem`) };
  const liveAuthority = env.TSA_URL
    ? httpAuthority(
        env.TSA_URL,
        env.TSA_NAME || new URL(env.TSA_URL).host,
        certificate(CERTIFICATE_FILES.tsaChain),
        certificate(CERTIFICATE_FILES.tsaQualifiedCerts),
      )
    : simulatedAuthority(pkiDir, "tsa-live", "Local Timestamp Authority");
  const seal = (mode: "live" | "test", productionKey: string | undefined, chainFile: string): SealIdentity => {
    const local = LOCAL_PROOF_SEALS[mode];
    return productionKey
      ? sealIdentity(productionKey, derChain(certificate(chainFile)))
      : sealIdentity(file(`${local.name}.pk8`), derChain(file(`${local.name}.pem`)));
  };
  return {
    port: Number(env.SEALER_PORT ?? 8788),
    secret: env.SEALER_SECRET ?? "",
    memoryBudgetBytes: Number(env.SEALER_MEMORY_BUDGET_MB ?? 1024) * 1024 * 1024,
    c2pa: {
      live: identity(env.C2PA_SIGNING_KEY_PEM || undefined, CERTIFICATE_FILES.c2paChain, CERTIFICATE_FILES.c2paTrustAnchor, "c2pa"),
      test: identity(env.C2PA_TEST_SIGNING_KEY_PEM || undefined, CERTIFICATE_FILES.c2paTestChain, CERTIFICATE_FILES.c2paTestTrustAnchor, "c2pa-test"),
    },
    seal: {
      live: seal("live", env.PROOF_SEAL_KEY_PEM || undefined, CERTIFICATE_FILES.proofSealChain),
      test: seal("test", env.PROOF_SEAL_TEST_KEY_PEM || undefined, CERTIFICATE_FILES.proofSealTestChain),
    },
    testAuthority: simulatedAuthority(pkiDir, "tsa-test", "Simulated TSA (test mode, no legal value)"),
    liveAuthority,
    // Its tokens sit inside the C2PA signatures, checked by C2PA validators against their own trust lists:
    // the sealer needs no chain of it (no `openssl ts -verify` of them).
    liveSignatureAuthority: env.TSA_SIGNATURE_URL
      ? httpAuthority(env.TSA_SIGNATURE_URL, env.TSA_SIGNATURE_NAME || new URL(env.TSA_SIGNATURE_URL).host, "", "")
      : liveAuthority,
    crls: crlSource({ localPkiDir: pkiDir }),
  };
}

export function signingKey(identity: C2paIdentity) {
  return loadSigningKey(identity.keyPem);
}
