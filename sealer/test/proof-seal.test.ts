import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync, mkdtempSync, unlinkSync, existsSync, readdirSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSealJob } from "../src/seal-job.ts";
import { sealManifest } from "../src/seal/manifest-seal.ts";
import { certificateSha256 } from "../src/seal/seal-identity.ts";
import { ensureLocalPki, LOCAL_PROOF_SEALS, localCrlUrl } from "../src/pki/ensure-local-pki.ts";
import { issueCertificate } from "../src/pki/issue-certificate.ts";
import type * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { localSeal, pem, pkiDir, sealContext, sha256 } from "./support.ts";
import { job } from "./storage-stand-in.ts";

/** `openssl cms -verify` exactly as docs/trust-anchors.md and VERIFY.md give it; its exit code and output. */
function opensslVerify(p7s: Uint8Array, manifest: Uint8Array | string, root: string) {
  const dir = mkdtempSync(join(tmpdir(), "p7s-"));
  writeFileSync(join(dir, "manifest.p7s"), p7s);
  writeFileSync(join(dir, "manifest.json"), manifest);
  writeFileSync(join(dir, "root.pem"), root);
  const args = ["cms", "-verify", "-binary", "-inform", "DER", "-in", "manifest.p7s", "-content", "manifest.json", "-CAfile", "root.pem", "-purpose", "any"];
  const result = spawnSync("openssl", [...args, "-out", "/dev/null"], { cwd: dir, encoding: "utf8" });
  rmSync(dir, { recursive: true });
  return result;
}

async function sealed(mode: "test" | "live") {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  sealJob.proof.mode = mode;
  const result = await runSealJob(sealContext(mode), sealJob);
  if (result.status !== "sealed") throw new Error("not sealed");
  return { manifest: result.manifest, p7s: new Uint8Array(Buffer.from(result.manifest_p7s_base64, "base64")) };
}

test("manifest.p7s of a sealed proof verifies with openssl cms against its mode's root, and against no other", async () => {
  const live = await sealed("live");
  assert.equal(opensslVerify(live.p7s, live.manifest, pem("c2pa-root.pem")).status, 0);
  const underTestRoot = opensslVerify(live.p7s, live.manifest, pem("c2pa-test-root.pem"));
  assert.notEqual(underTestRoot.status, 0);
  assert.match(underTestRoot.stderr, /unable to get local issuer certificate/);
  // Another root altogether, here a timestamp authority's.
  assert.notEqual(opensslVerify(live.p7s, live.manifest, pem("tsa-live-root.pem")).status, 0);
});

test("a test proof is sealed by the test identity: its manifest.p7s is refused against the live root", async () => {
  const testProof = await sealed("test");
  assert.equal(opensslVerify(testProof.p7s, testProof.manifest, pem("c2pa-test-root.pem")).status, 0);
  assert.notEqual(opensslVerify(testProof.p7s, testProof.manifest, pem("c2pa-root.pem")).status, 0);
  const signer = spawnSync("openssl", ["pkcs7", "-inform", "DER", "-print_certs", "-noout"], { input: testProof.p7s, encoding: "utf8" }).stdout;
  assert.match(signer, /subject=.*Test Proof Seal - TEST ONLY - NO LEGAL VALUE/);
});

test("one byte of manifest.json changed and the seal no longer verifies", async () => {
  const { manifest, p7s } = await sealed("live");
  const altered = Buffer.from(manifest);
  altered[altered.indexOf("provider")] = "P".charCodeAt(0);
  const result = opensslVerify(p7s, altered, pem("c2pa-root.pem"));
  assert.equal(result.status, 4);
  assert.match(result.stderr, /content verify error|digest failure/i);
});

test("the seal is CAdES-B: contentType id-data, messageDigest, signingTime and ESS signingCertificateV2 over the sealing certificate, detached, root left out", async () => {
  const { manifest, p7s } = await sealed("live");
  const printed = spawnSync("openssl", ["cms", "-cmsout", "-print", "-inform", "DER"], { input: p7s, encoding: "utf8" }).stdout;
  const signedAttrs = printed.slice(printed.indexOf("signedAttrs:"), printed.indexOf("signatureAlgorithm:", printed.indexOf("signedAttrs:")));
  assert.match(signedAttrs, /contentType \(1\.2\.840\.113549\.1\.9\.3\)\s+set:\s+OBJECT:pkcs7-data/);
  assert.match(signedAttrs, /messageDigest \(1\.2\.840\.113549\.1\.9\.4\)/);
  assert.match(signedAttrs, /signingTime \(1\.2\.840\.113549\.1\.9\.5\)/);
  assert.match(signedAttrs, /signingCertificateV2 \(1\.2\.840\.113549\.1\.9\.16\.2\.47\)/);
  assert.match(printed, /eContent: <ABSENT>/, "detached: manifest.json travels beside it");
  assert.match(printed, /algorithm: ecdsa-with-SHA256/);
  // The values: the digest is manifest.json's SHA-256, the ESS certificate hash the sealing certificate's.
  const signerInfo = pkijs.SignedData.fromBER(pkijs.ContentInfo.fromBER(p7s.slice().buffer).content.toBER()).signerInfos[0]!;
  const attribute = (oid: string) => signerInfo.signedAttrs!.attributes.find((one) => one.type === oid)!.values[0]!;
  const octets = (value: asn1js.AsnType) => Buffer.from((value as asn1js.OctetString).valueBlock.valueHexView).toString("hex");
  assert.equal(octets(attribute("1.2.840.113549.1.9.4")), sha256(manifest));
  const essCertIdV2 = (attribute("1.2.840.113549.1.9.16.2.47") as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
  const [certHash, issuerSerial] = (essCertIdV2.valueBlock.value[0] as asn1js.Sequence).valueBlock.value;
  const certificate = new X509Certificate(pem(`${LOCAL_PROOF_SEALS.live.name}.pem`));
  assert.equal(octets(certHash!), certificateSha256(new Uint8Array(certificate.raw)));
  const serial = (issuerSerial as asn1js.Sequence).valueBlock.value[1] as asn1js.Integer;
  assert.equal(BigInt(`0x${Buffer.from(serial.valueBlock.valueHexView).toString("hex")}`), BigInt(`0x${certificate.serialNumber}`));
  const certificates = spawnSync("openssl", ["pkcs7", "-inform", "DER", "-print_certs", "-noout"], { input: p7s, encoding: "utf8" }).stdout;
  assert.equal(certificates.match(/subject=/g)?.length, 1, "the sealing certificate alone, never the root");
  assert.match(certificates, /CN ?= ?Local Proof Seal/);
});

test("each sealing certificate is a document-signing end entity of its mode's C2PA root, also for emailProtection (ADR 0054), with its CRL", () => {
  for (const mode of ["live", "test"] as const) {
    const { name, root } = LOCAL_PROOF_SEALS[mode];
    const text = spawnSync("openssl", ["x509", "-in", join(pkiDir, `${name}.pem`), "-noout", "-text"], { encoding: "utf8" }).stdout;
    assert.match(text, /Basic Constraints: critical\s+CA:FALSE/);
    assert.match(text, /Key Usage: critical\s+Digital Signature, Non Repudiation\n/);
    assert.match(text, /Extended Key Usage: ?\n\s+(1\.3\.6\.1\.5\.5\.7\.3\.36|Document Signing), E-mail Protection\n/);
    assert.match(text, /Subject Key Identifier/);
    assert.match(text, /Authority Key Identifier/);
    assert.match(text, new RegExp(`URI:http://localhost/pki/${root}\\.crl`));
    assert.ok(new X509Certificate(pem(`${name}.pem`)).checkIssued(new X509Certificate(pem(`${root}.pem`))));
    assert.equal(spawnSync("openssl", ["verify", "-CAfile", join(pkiDir, `${root}.pem`), join(pkiDir, `${name}.pem`)], { encoding: "utf8" }).status, 0);
  }
  assert.match(new X509Certificate(pem("proof-seal-test.pem")).subject, /TEST ONLY - NO LEGAL VALUE/);
  assert.doesNotMatch(new X509Certificate(pem("proof-seal.pem")).subject, /test/i);
});

test("a local PKI folder made by an older checkout gains the proof seals on the next start, keeping its roots", () => {
  const dir = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "older-pki-")), "pki"));
  const root = readFileSync(join(dir, "c2pa-root.pem"), "utf8");
  // As the folder was before the proof seal existed: no seal files, the former completion marker.
  for (const file of readdirSync(dir).filter((name) => name.startsWith("proof-seal") || name.startsWith("ready-"))) unlinkSync(join(dir, file));
  writeFileSync(join(dir, "ready-with-crls"), "");
  ensureLocalPki(dir);
  for (const file of ["proof-seal.pem", "proof-seal.pk8", "proof-seal-test.pem", "proof-seal-test.pk8"]) assert.ok(existsSync(join(dir, file)), file);
  assert.equal(readFileSync(join(dir, "c2pa-root.pem"), "utf8"), root);
  assert.ok(new X509Certificate(readFileSync(join(dir, "proof-seal.pem"))).checkIssued(new X509Certificate(root)));
});

test("a local PKI folder whose seal certificates lack emailProtection gets them issued again, from the same keys (ADR 0054)", () => {
  const dir = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "older-pki-")), "pki"));
  // As an older checkout issued them: documentSigning alone (with the CRL distribution point), and the former marker.
  for (const { name, root } of Object.values(LOCAL_PROOF_SEALS)) {
    const extensions = `[seal]\nbasicConstraints = critical, CA:FALSE\nextendedKeyUsage = 1.3.6.1.5.5.7.3.36\ncrlDistributionPoints = URI:${localCrlUrl(root)}\n`;
    writeFileSync(join(dir, `${name}-before-0054.ext`), extensions);
    const certificate = { name, subject: `/CN=${name}`, issuer: root, days: 1, config: "extensions.cnf", extensions: "seal" };
    issueCertificate(dir, { ...certificate, extensionFile: `${name}-before-0054.ext` });
  }
  for (const file of readdirSync(dir).filter((name) => name.startsWith("ready-"))) unlinkSync(join(dir, file));
  writeFileSync(join(dir, "ready-with-proof-seals"), "");
  const keys = Object.values(LOCAL_PROOF_SEALS).map(({ name }) => readFileSync(join(dir, `${name}.key`), "utf8"));
  ensureLocalPki(dir);
  for (const [index, { name }] of Object.values(LOCAL_PROOF_SEALS).entries()) {
    const certificate = new X509Certificate(readFileSync(join(dir, `${name}.pem`)));
    assert.deepEqual(certificate.keyUsage, ["1.3.6.1.5.5.7.3.36", "1.3.6.1.5.5.7.3.4"], name);
    assert.equal(readFileSync(join(dir, `${name}.key`), "utf8"), keys[index]);
  }
});

test("sealManifest puts intermediates in the CMS and the result is DER that openssl reads", () => {
  const seal = localSeal("live");
  const withIntermediate = { ...seal, intermediatesDer: [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)] };
  const p7s = sealManifest(new TextEncoder().encode("{}"), withIntermediate, new Date("2026-11-26T12:00:00Z"), []);
  const certificates = spawnSync("openssl", ["pkcs7", "-inform", "DER", "-print_certs", "-noout"], { input: p7s, encoding: "utf8" }).stdout;
  assert.equal(certificates.match(/subject=/g)?.length, 2);
  assert.equal(opensslVerify(p7s, "{}", pem("c2pa-root.pem")).status, 0);
  const printed = spawnSync("openssl", ["cms", "-cmsout", "-print", "-inform", "DER"], { input: p7s, encoding: "utf8" }).stdout;
  assert.match(printed, /UTCTIME:Nov 26 12:00:00 2026 GMT/);
});
