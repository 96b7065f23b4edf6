import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSealJob } from "../src/seal-job.ts";
import { loadConfig } from "../src/config.ts";
import type { TimestampAuthority } from "../src/tsa/authority.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { FIXTURE_CHAIN_PEM } from "../../test/api/fixtures/sealed-proof.ts";
import { pkiDir, sealContext } from "./support.ts";
import { job } from "./storage-stand-in.ts";

/** An authority that counts the requests it answers (what a paying customer of it is billed for). */
function counted(authority: TimestampAuthority): TimestampAuthority & { calls: number } {
  const wrapper = {
    ...authority,
    calls: 0,
    respond(request: Uint8Array, signal?: AbortSignal) {
      wrapper.calls++;
      return authority.respond(request, signal);
    },
  };
  return wrapper;
}

const threePhotos = () => {
  const sealJob = job([
    { name: "photo.jpg", type: "image/jpeg" },
    { name: "photo.jpg", type: "image/jpeg" },
    { name: "photo.png", type: "image/png" },
  ]);
  return { ...sealJob, proof: { ...sealJob.proof, mode: "live" as const } };
};

test("with two authorities, the qualified one is asked exactly once per live proof (its manifest), the other once per file", async () => {
  const qualified = counted(simulatedAuthority(pkiDir, "tsa-live", "Qualified"));
  const signatures = counted(simulatedAuthority(pkiDir, "tsa-test", "Signatures"));
  const result = await runSealJob({ ...sealContext("live"), authority: qualified, signatureAuthority: signatures }, threePhotos());
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  assert.equal(qualified.calls, 1);
  assert.equal(signatures.calls, 3);
  assert.deepEqual(
    result.timings?.authority_calls,
    { proof_authority: 1, signature_authority: 3 },
    "what the job reports (npm run bench prints it) is what each authority received",
  );
  assert.equal(result.timestamp.authority, "Qualified");
  assert.equal(result.chain_pem, qualified.chainPem, "the proof publishes the chain of its own token's authority");
});

test("with one authority (the default), it timestamps every file's signature and the manifest: N + 1 requests", async () => {
  const only = counted(simulatedAuthority(pkiDir, "tsa-live", "Only"));
  const result = await runSealJob({ ...sealContext("live"), authority: only }, threePhotos());
  assert.equal(result.status, "sealed");
  assert.equal(only.calls, 4);
});

test("TSA_SIGNATURE_URL names the signatures' authority; without it the live authority does both", () => {
  const certsDir = mkdtempSync(join(tmpdir(), "certs-"));
  writeFileSync(join(certsDir, "tsa-chain.pem"), FIXTURE_CHAIN_PEM);
  const base = { PKI_DIR: pkiDir, SEALER_CERTS_DIR: certsDir, TSA_URL: "https://qualified.example/tsr" };
  const two = loadConfig({ ...base, TSA_SIGNATURE_URL: "https://signatures.example/tsr" });
  assert.equal(two.liveAuthority.name, "qualified.example");
  assert.equal(two.liveSignatureAuthority.name, "signatures.example");
  const named = loadConfig({ ...base, TSA_SIGNATURE_URL: "https://signatures.example/tsr", TSA_SIGNATURE_NAME: "Signatures TSA" });
  assert.equal(named.liveSignatureAuthority.name, "Signatures TSA");
  const one = loadConfig(base);
  assert.equal(one.liveSignatureAuthority, one.liveAuthority);
});
