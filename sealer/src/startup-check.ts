import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { SEALER_SETTINGS } from "../../shared/sealer-settings.ts";
import { DOCUMENT_SIGNING_OID } from "../../shared/verification/manifest-seal.ts";

/**
 * The extended key usages a proof seal certificate must list (docs/adr/0054): documentSigning, which the
 * verification core requires of a seal, and emailProtection, without which PDF readers (NSS, Acrobat) do not
 * trust the PDF report's seal.
 */
const PROOF_SEAL_PURPOSES = { documentSigning: DOCUMENT_SIGNING_OID, emailProtection: "1.3.6.1.5.5.7.3.4" } as const;

/** Workers refuse a secret or variable over 5 KB; the sealer's settings come from Worker secrets. */
export const MAX_SETTING_BYTES = 5 * 1024;

/** The public certificates, files of the image (sealer/certs/README.md), and when each is needed. */
export const CERTIFICATE_FILES = {
  c2paChain: "c2pa-chain.pem",
  c2paTrustAnchor: "c2pa-trust-anchor.pem",
  c2paTestChain: "c2pa-test-chain.pem",
  c2paTestTrustAnchor: "c2pa-test-trust-anchor.pem",
  proofSealChain: "proof-seal-chain.pem",
  proofSealTestChain: "proof-seal-test-chain.pem",
  tsaChain: "tsa-chain.pem",
  tsaQualifiedCerts: "tsa-qualified-certs.pem",
} as const;

/** Former variables that carried certificates: no longer read, so a deploy still setting them is refused. */
const FORMER_CERTIFICATE_VARIABLES: Record<string, string> = {
  C2PA_CERT_CHAIN_PEM: CERTIFICATE_FILES.c2paChain,
  C2PA_TRUST_ANCHOR_PEM: CERTIFICATE_FILES.c2paTrustAnchor,
  TSA_CHAIN_PEM: CERTIFICATE_FILES.tsaChain,
  TSA_QUALIFIED_CERTS_PEM: CERTIFICATE_FILES.tsaQualifiedCerts,
};

/** Every setting the sealer takes from a Worker secret or variable: its own, and the secret it shares with the Worker. */
const SECRET_SETTINGS = ["SEALER_SECRET", ...SEALER_SETTINGS] as const;

export const pemCertificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/**
 * What would make the sealer seal with the wrong material or fail later, named so that the operator
 * can fix it before the first proof: a certificate file missing or empty while the setting that needs it
 * is set, a former certificate variable still set, a setting over the 5 KB a Worker secret can hold.
 */
export function startupProblems(env: NodeJS.ProcessEnv, certsDir: string): string[] {
  const problems: string[] = [];
  const set = (name: string) => typeof env[name] === "string" && env[name] !== "";
  for (const name of SECRET_SETTINGS) {
    const bytes = Buffer.byteLength(env[name] ?? "");
    if (bytes > MAX_SETTING_BYTES) problems.push(`${name} is ${bytes} bytes, over the ${MAX_SETTING_BYTES} a Worker secret can hold`);
  }
  for (const [name, file] of Object.entries(FORMER_CERTIFICATE_VARIABLES)) {
    if (set(name)) problems.push(`${name} is no longer read: put those certificates in ${join(certsDir, file)}`);
  }
  const needs = (file: string, because: string) => {
    const path = join(certsDir, file);
    if (!existsSync(path)) problems.push(`${path} is missing (needed because ${because} is set)`);
    else if (pemCertificates(readFileSync(path, "utf8")).length === 0) problems.push(`${path} holds no PEM certificate`);
  };
  if (set("C2PA_SIGNING_KEY_PEM")) {
    needs(CERTIFICATE_FILES.c2paChain, "C2PA_SIGNING_KEY_PEM");
    needs(CERTIFICATE_FILES.c2paTrustAnchor, "C2PA_SIGNING_KEY_PEM");
  }
  if (set("C2PA_SIGNING_KEY_PEM") && !set("C2PA_TEST_SIGNING_KEY_PEM")) {
    problems.push("C2PA_TEST_SIGNING_KEY_PEM is not set: test proofs must be signed with their own test identity, never the live key");
  }
  if (set("C2PA_TEST_SIGNING_KEY_PEM")) {
    needs(CERTIFICATE_FILES.c2paTestChain, "C2PA_TEST_SIGNING_KEY_PEM");
    needs(CERTIFICATE_FILES.c2paTestTrustAnchor, "C2PA_TEST_SIGNING_KEY_PEM");
    problems.push(...testIdentityProblems(certsDir));
  }
  if (set("TSA_URL")) needs(CERTIFICATE_FILES.tsaChain, "TSA_URL");
  problems.push(...proofSealProblems(env, certsDir, needs));
  return problems;
}

/**
 * The proof seal (manifest.p7s, docs/adr/0027) goes with the C2PA identity of its mode: a production
 * C2PA key needs a production seal key, and each seal certificate must be issued under that mode's C2PA
 * trust anchor (the one root verifiers pin for both), the test one saying it is a test.
 */
function proofSealProblems(env: NodeJS.ProcessEnv, certsDir: string, needs: (file: string, because: string) => void): string[] {
  const set = (name: string) => typeof env[name] === "string" && env[name] !== "";
  const problems: string[] = [];
  const modes = [
    {
      seal: "PROOF_SEAL_KEY_PEM",
      c2pa: "C2PA_SIGNING_KEY_PEM",
      chain: CERTIFICATE_FILES.proofSealChain,
      anchor: CERTIFICATE_FILES.c2paTrustAnchor,
      test: false,
    },
    {
      seal: "PROOF_SEAL_TEST_KEY_PEM",
      c2pa: "C2PA_TEST_SIGNING_KEY_PEM",
      chain: CERTIFICATE_FILES.proofSealTestChain,
      anchor: CERTIFICATE_FILES.c2paTestTrustAnchor,
      test: true,
    },
  ];
  for (const mode of modes) {
    if (set(mode.seal) !== set(mode.c2pa)) {
      problems.push(`${mode.seal} and ${mode.c2pa} are set together: the proof seal and the C2PA signer of a mode chain to the same root`);
      continue;
    }
    if (!set(mode.seal)) continue;
    needs(mode.chain, mode.seal);
    const chain = pemCertificates(readCertificateFile(certsDir, mode.chain)).map((pem) => new X509Certificate(pem));
    const anchors = pemCertificates(readCertificateFile(certsDir, mode.anchor)).map((pem) => new X509Certificate(pem));
    const top = chain.at(-1);
    if (top && anchors.length > 0 && !anchors.some((anchor) => top.checkIssued(anchor) && top.verify(anchor.publicKey))) {
      problems.push(`${join(certsDir, mode.chain)} does not chain to ${join(certsDir, mode.anchor)}`);
    }
    const lacking = Object.entries(PROOF_SEAL_PURPOSES).filter(([, oid]) => chain[0] && !(chain[0].keyUsage ?? []).includes(oid));
    if (lacking.length > 0) {
      const names = lacking.map(([name, oid]) => `${name} (${oid})`).join(" and ");
      problems.push(`the first certificate of ${join(certsDir, mode.chain)} lacks the extended key usage ${names}: issue it again with both`);
    }
    if (mode.test && chain[0] && !/test/i.test(chain[0].subject)) {
      problems.push(`the first certificate of ${join(certsDir, mode.chain)} does not say in its subject that it is a test`);
    }
  }
  return problems;
}

/**
 * The test identity must be told apart from the live one by anyone: its signer names itself a test, and
 * its root is not the live root (else a free test proof would validate as a live one).
 */
function testIdentityProblems(certsDir: string): string[] {
  const testChain = pemCertificates(readCertificateFile(certsDir, CERTIFICATE_FILES.c2paTestChain));
  const testAnchor = pemCertificates(readCertificateFile(certsDir, CERTIFICATE_FILES.c2paTestTrustAnchor));
  const liveAnchor = pemCertificates(readCertificateFile(certsDir, CERTIFICATE_FILES.c2paTrustAnchor));
  const problems: string[] = [];
  if (testChain[0] && !/test/i.test(new X509Certificate(testChain[0]).subject)) {
    problems.push(`the first certificate of ${join(certsDir, CERTIFICATE_FILES.c2paTestChain)} does not say in its subject that it is a test`);
  }
  const liveRaw = new Set(liveAnchor.map((pem) => new X509Certificate(pem).fingerprint256));
  if (testAnchor.some((pem) => liveRaw.has(new X509Certificate(pem).fingerprint256))) {
    problems.push(`${join(certsDir, CERTIFICATE_FILES.c2paTestTrustAnchor)} holds the live trust anchor: test proofs need a root of their own`);
  }
  return problems;
}

export function assertStartupConfiguration(env: NodeJS.ProcessEnv, certsDir: string): void {
  const problems = startupProblems(env, certsDir);
  if (problems.length > 0) throw new Error(`The sealer cannot start:\n- ${problems.join("\n- ")}`);
}

/** A certificate file's text, or "" when it is absent (optional files). */
export function readCertificateFile(certsDir: string, file: string): string {
  const path = join(certsDir, file);
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}
