import { test } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSealJob } from "../src/seal-job.ts";
import { readC2pa } from "../src/c2pa/c2pa.ts";
import { loadConfig } from "../src/config.ts";
import { pem, sealContext } from "./support.ts";
import { job, written } from "./storage-stand-in.ts";

/** Seals one JPEG in `mode` and returns the signed bytes with the trust anchor the proof publishes. */
async function sealedIn(mode: "test" | "live") {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  sealJob.proof.mode = mode;
  const result = await runSealJob(sealContext(mode), sealJob);
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") throw new Error("not sealed");
  return { signed: written.get(`/signed/${result.files[0]!.id}`)!, anchor: result.c2pa_trust_anchor_pem };
}

test("a test file never validates under the live trust anchor, nor a live file under the test anchor", async () => {
  const testFile = await sealedIn("test");
  const liveFile = await sealedIn("live");
  assert.notEqual(testFile.anchor, liveFile.anchor);
  assert.equal((await readC2pa(testFile.signed, "image/jpeg", testFile.anchor)).state, "Trusted");
  assert.equal((await readC2pa(liveFile.signed, "image/jpeg", liveFile.anchor)).state, "Trusted");
  const testUnderLive = await readC2pa(testFile.signed, "image/jpeg", pem("c2pa-root.pem"));
  assert.notEqual(testUnderLive.state, "Trusted");
  assert.ok(testUnderLive.codes.includes("signingCredential.untrusted"));
  assert.notEqual((await readC2pa(liveFile.signed, "image/jpeg", pem("c2pa-test-root.pem"))).state, "Trusted");
});

test("the test signer's certificate names itself a test with no legal value and differs from the live one", async () => {
  const testSigner = new X509Certificate(pem("c2pa-test-signer.pem"));
  const liveSigner = new X509Certificate(pem("c2pa-signer.pem"));
  assert.match(testSigner.subject, /TEST ONLY - NO LEGAL VALUE/);
  assert.doesNotMatch(liveSigner.subject, /test/i);
  assert.notEqual(testSigner.fingerprint256, liveSigner.fingerprint256);
  assert.ok(testSigner.checkIssued(new X509Certificate(pem("c2pa-test-root.pem"))));
  assert.ok(!testSigner.checkIssued(new X509Certificate(pem("c2pa-root.pem"))));
  const { signed } = await sealedIn("test");
  const reading = await readC2pa(signed, "image/jpeg");
  assert.match(String((reading.activeManifest?.signature_info as { issuer?: string } | undefined)?.issuer ?? ""), /no legal value/i);
});

test("the local configuration gives each mode its own identity", () => {
  const config = loadConfig({ PKI_DIR: join(mkdtempSync(join(tmpdir(), "identity-")), "pki") });
  assert.notEqual(config.c2pa.test.keyPem, config.c2pa.live.keyPem);
  assert.notEqual(config.c2pa.test.trustAnchorPem, config.c2pa.live.trustAnchorPem);
});
