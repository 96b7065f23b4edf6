import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { loadConfig } from "../src/config.ts";
import { ensureLocalPki } from "../src/pki/ensure-local-pki.ts";
import { issueCertificate } from "../src/pki/issue-certificate.ts";
import { MAX_SETTING_BYTES, startupProblems } from "../src/startup-check.ts";
import { SEALER_SETTINGS } from "../../shared/sealer-settings.ts";

const fresh = (name: string) => mkdtempSync(join(tmpdir(), `${name}-`));
const pki = ensureLocalPki(join(fresh("pki"), "pki"));
const signingKey = readFileSync(join(pki, "c2pa-signer.pk8"), "utf8");
const testSigningKey = readFileSync(join(pki, "c2pa-test-signer.pk8"), "utf8");
const sealKey = readFileSync(join(pki, "proof-seal.pk8"), "utf8");
const testSealKey = readFileSync(join(pki, "proof-seal-test.pk8"), "utf8");
const keys = { C2PA_SIGNING_KEY_PEM: signingKey, C2PA_TEST_SIGNING_KEY_PEM: testSigningKey, PROOF_SEAL_KEY_PEM: sealKey, PROOF_SEAL_TEST_KEY_PEM: testSealKey };

/** A certificates folder as the image ships it, made from the local PKI standing in for real ones. */
function certsDir(): string {
  const dir = fresh("certs");
  copyFileSync(join(pki, "c2pa-signer.pem"), join(dir, "c2pa-chain.pem"));
  copyFileSync(join(pki, "c2pa-root.pem"), join(dir, "c2pa-trust-anchor.pem"));
  copyFileSync(join(pki, "c2pa-test-signer.pem"), join(dir, "c2pa-test-chain.pem"));
  copyFileSync(join(pki, "c2pa-test-root.pem"), join(dir, "c2pa-test-trust-anchor.pem"));
  copyFileSync(join(pki, "proof-seal.pem"), join(dir, "proof-seal-chain.pem"));
  copyFileSync(join(pki, "proof-seal-test.pem"), join(dir, "proof-seal-test-chain.pem"));
  writeFileSync(join(dir, "tsa-chain.pem"), readFileSync(join(pki, "tsa-live.pem"), "utf8") + readFileSync(join(pki, "tsa-live-root.pem"), "utf8"));
  return dir;
}

test("production certificates come from files of the image; only the keys are secrets, live and test apart", () => {
  const dir = certsDir();
  const config = loadConfig({ PKI_DIR: pki, SEALER_CERTS_DIR: dir, ...keys, TSA_URL: "https://tsa.example/tsr" });
  assert.equal(config.c2pa.live.keyPem, signingKey);
  assert.equal(config.c2pa.live.chainDer.length, 1);
  assert.equal(config.c2pa.live.trustAnchorPem, readFileSync(join(dir, "c2pa-trust-anchor.pem"), "utf8"));
  assert.equal(config.c2pa.test.keyPem, testSigningKey);
  assert.equal(config.c2pa.test.trustAnchorPem, readFileSync(join(dir, "c2pa-test-trust-anchor.pem"), "utf8"));
  assert.match(config.liveAuthority.chainPem, /BEGIN CERTIFICATE/);
  assert.equal(config.liveAuthority.name, "tsa.example");
  assert.deepEqual(config.seal.live.certificateDer, new Uint8Array(new X509Certificate(readFileSync(join(dir, "proof-seal-chain.pem"))).raw));
  assert.deepEqual(config.seal.test.certificateDer, new Uint8Array(new X509Certificate(readFileSync(join(dir, "proof-seal-test-chain.pem"))).raw));
  assert.equal(config.seal.live.key.export({ format: "pem", type: "pkcs8" }), sealKey);
});

test("the startup check names each missing or empty certificate file and the setting that needs it", () => {
  const empty = fresh("certs");
  writeFileSync(join(empty, "c2pa-chain.pem"), "not a certificate");
  const problems = startupProblems({ ...keys, TSA_URL: "https://tsa.example/tsr" }, empty);
  assert.deepEqual(problems, [
    `${join(empty, "c2pa-chain.pem")} holds no PEM certificate`,
    `${join(empty, "c2pa-trust-anchor.pem")} is missing (needed because C2PA_SIGNING_KEY_PEM is set)`,
    `${join(empty, "c2pa-test-chain.pem")} is missing (needed because C2PA_TEST_SIGNING_KEY_PEM is set)`,
    `${join(empty, "c2pa-test-trust-anchor.pem")} is missing (needed because C2PA_TEST_SIGNING_KEY_PEM is set)`,
    `${join(empty, "tsa-chain.pem")} is missing (needed because TSA_URL is set)`,
    `${join(empty, "proof-seal-chain.pem")} is missing (needed because PROOF_SEAL_KEY_PEM is set)`,
    `${join(empty, "proof-seal-test-chain.pem")} is missing (needed because PROOF_SEAL_TEST_KEY_PEM is set)`,
  ]);
  assert.throws(() => loadConfig({ PKI_DIR: pki, SEALER_CERTS_DIR: empty, C2PA_SIGNING_KEY_PEM: signingKey }), /c2pa-trust-anchor\.pem is missing/);
});

test("the startup check names a former certificate variable still set and a setting over 5 KB", () => {
  const dir = certsDir();
  const problems = startupProblems(
    { TSA_CHAIN_PEM: "-----BEGIN CERTIFICATE-----…", TSA_NAME: "x".repeat(MAX_SETTING_BYTES + 1), C2PA_TRUST_ANCHOR_PEM: "" },
    dir,
  );
  assert.deepEqual(problems, [
    `TSA_NAME is ${MAX_SETTING_BYTES + 1} bytes, over the ${MAX_SETTING_BYTES} a Worker secret can hold`,
    `TSA_CHAIN_PEM is no longer read: put those certificates in ${join(dir, "tsa-chain.pem")}`,
  ]);
});

test("every setting the Worker hands the sealer (shared/sealer-settings.ts) is held to the 5 KB of a Worker secret", () => {
  for (const name of ["SEALER_SECRET", ...SEALER_SETTINGS]) {
    const problems = startupProblems({ [name]: "x".repeat(MAX_SETTING_BYTES + 1) }, certsDir());
    assert.ok(problems.includes(`${name} is ${MAX_SETTING_BYTES + 1} bytes, over the ${MAX_SETTING_BYTES} a Worker secret can hold`), name);
  }
});

test("a live key without a test key is refused: test proofs would be signed as live ones", () => {
  assert.deepEqual(startupProblems({ C2PA_SIGNING_KEY_PEM: signingKey, PROOF_SEAL_KEY_PEM: sealKey }, certsDir()), [
    "C2PA_TEST_SIGNING_KEY_PEM is not set: test proofs must be signed with their own test identity, never the live key",
  ]);
});

test("a test identity under the live root, or whose signer does not say it is a test, is refused", () => {
  const dir = certsDir();
  copyFileSync(join(pki, "c2pa-root.pem"), join(dir, "c2pa-test-trust-anchor.pem"));
  copyFileSync(join(pki, "c2pa-signer.pem"), join(dir, "c2pa-test-chain.pem"));
  assert.deepEqual(startupProblems(keys, dir), [
    `the first certificate of ${join(dir, "c2pa-test-chain.pem")} does not say in its subject that it is a test`,
    `${join(dir, "c2pa-test-trust-anchor.pem")} holds the live trust anchor: test proofs need a root of their own`,
    `${join(dir, "proof-seal-test-chain.pem")} does not chain to ${join(dir, "c2pa-test-trust-anchor.pem")}`,
  ]);
});

test("a proof seal key goes with its mode's C2PA key, under its C2PA root, the test one saying it is a test", () => {
  const dir = certsDir();
  assert.deepEqual(startupProblems({ ...keys, PROOF_SEAL_KEY_PEM: "" }, dir), [
    "PROOF_SEAL_KEY_PEM and C2PA_SIGNING_KEY_PEM are set together: the proof seal and the C2PA signer of a mode chain to the same root",
  ]);
  copyFileSync(join(pki, "proof-seal-test.pem"), join(dir, "proof-seal-chain.pem"));
  copyFileSync(join(pki, "proof-seal.pem"), join(dir, "proof-seal-test-chain.pem"));
  assert.deepEqual(startupProblems(keys, dir), [
    `${join(dir, "proof-seal-chain.pem")} does not chain to ${join(dir, "c2pa-trust-anchor.pem")}`,
    `${join(dir, "proof-seal-test-chain.pem")} does not chain to ${join(dir, "c2pa-test-trust-anchor.pem")}`,
    `the first certificate of ${join(dir, "proof-seal-test-chain.pem")} does not say in its subject that it is a test`,
  ]);
});

test("a proof seal certificate without documentSigning or emailProtection is refused (docs/adr/0054)", () => {
  const dir = certsDir();
  // The profile before docs/adr/0054: documentSigning alone, which PDF readers do not trust.
  writeFileSync(join(pki, "seal-document-signing-only.ext"), "[seal]\nbasicConstraints = critical, CA:FALSE\nextendedKeyUsage = 1.3.6.1.5.5.7.3.36\n");
  const certificate = { subject: "/CN=Local Proof Seal", issuer: "c2pa-root", days: 1, config: "extensions.cnf", extensions: "seal" };
  issueCertificate(pki, { ...certificate, name: "seal-document-signing-only", extensionFile: "seal-document-signing-only.ext" });
  copyFileSync(join(pki, "seal-document-signing-only.pem"), join(dir, "proof-seal-chain.pem"));
  // The C2PA signer's certificate: emailProtection without documentSigning.
  copyFileSync(join(pki, "c2pa-test-signer.pem"), join(dir, "proof-seal-test-chain.pem"));
  assert.deepEqual(startupProblems(keys, dir), [
    `the first certificate of ${join(dir, "proof-seal-chain.pem")} lacks the extended key usage emailProtection (1.3.6.1.5.5.7.3.4): issue it again with both`,
    `the first certificate of ${join(dir, "proof-seal-test-chain.pem")} lacks the extended key usage documentSigning (1.3.6.1.5.5.7.3.36): issue it again with both`,
  ]);
});

test("a proof seal key that is not its certificate's key is refused at start", () => {
  assert.throws(
    () => loadConfig({ PKI_DIR: pki, SEALER_CERTS_DIR: certsDir(), ...keys, PROOF_SEAL_KEY_PEM: testSealKey, TSA_URL: "https://tsa.example/tsr" }),
    /the proof seal's key is not the key of its certificate/,
  );
});

test("local development needs no certificate file", () => {
  assert.deepEqual(startupProblems({ PKI_DIR: pki }, join(fresh("none"), "missing")), []);
});

test("the sealer process refuses to start, naming what is missing", () => {
  const empty = fresh("certs");
  mkdirSync(empty, { recursive: true });
  const result = spawnSync(process.execPath, ["sealer/src/main.ts"], {
    env: { ...process.env, PKI_DIR: pki, SEALER_CERTS_DIR: empty, C2PA_SIGNING_KEY_PEM: signingKey, SEALER_PORT: "0", SEALER_SECRET: "s" },
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /The sealer cannot start/);
  assert.match(result.stderr, /c2pa-chain\.pem is missing \(needed because C2PA_SIGNING_KEY_PEM is set\)/);
});
