import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { crc32 } from "node:zlib";
import { createServer } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSealJob, TransientJobError } from "../src/seal-job.ts";
import { TimestampUnavailableError } from "../src/tsa/authority.ts";
import { ByteBudget } from "../src/byte-budget.ts";
import { readC2pa } from "../src/c2pa/c2pa.ts";
import { sniffType, isWellFormed } from "../src/verify-file.ts";
import { fixture, sealContext, sha256 } from "./support.ts";
import { base, job, written } from "./storage-stand-in.ts";

test("seals a proof: signed copies written, manifest hashed, token verified by openssl", async () => {
  const sealJob = job([
    { name: "photo.jpg", type: "image/jpeg" },
    { name: "clip.mp4", type: "video/mp4" },
  ]);
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  assert.equal(sha256(result.manifest), result.manifest_sha256);
  const manifest = JSON.parse(result.manifest);
  assert.equal(manifest.proof_id, sealJob.proof.id);
  assert.deepEqual(
    manifest.files.map((f: { id: string }) => f.id),
    sealJob.files.map((f) => f.id),
  );
  for (const file of result.files) {
    const signed = written.get(`/signed/${file.id}`)!;
    assert.equal(sha256(signed), file.signed_sha256);
    assert.equal(file.signed_crc32, crc32(signed), "the CRC-32 the package's ZIP takes as is");
    assert.equal(manifest.files.find((f: { id: string }) => f.id === file.id).signed_sha256, file.signed_sha256);
    const reading = await readC2pa(signed, file.sniffed_type, result.c2pa_trust_anchor_pem);
    assert.equal(reading.state, "Trusted");
  }
  const dir = mkdtempSync(join(tmpdir(), "sealed-"));
  writeFileSync(join(dir, "proof.tsr"), Buffer.from(result.tsr_base64, "base64"));
  writeFileSync(join(dir, "chain.pem"), result.chain_pem);
  writeFileSync(join(dir, "manifest.json"), result.manifest);
  const verdict = execFileSync("openssl", ["ts", "-verify", "-digest", result.manifest_sha256, "-in", "proof.tsr", "-CAfile", "chain.pem"], {
    cwd: dir,
  }).toString();
  assert.match(verdict, /Verification: OK/);
  const byData = execFileSync("openssl", ["ts", "-verify", "-data", "manifest.json", "-in", "proof.tsr", "-CAfile", "chain.pem"], { cwd: dir }).toString();
  assert.match(byData, /Verification: OK/);
});

const failures: [string, Parameters<typeof job>[0], string][] = [
  ["a hash that differs from the declared one", [{ name: "photo.jpg", type: "image/jpeg", declared: { sha256: "a".repeat(64) } }], "file_hash_mismatch"],
  ["a size that differs", [{ name: "photo.jpg", type: "image/jpeg", declared: { size: 12 } }], "file_size_mismatch"],
  ["a PNG declared as a JPEG", [{ name: "photo.png", type: "image/jpeg" }], "file_type_mismatch"],
  ["bytes of no allowed type", [{ name: "x", type: "image/jpeg", bytes: new TextEncoder().encode("%PDF-1.7 not a photo") }], "file_type_not_allowed"],
  ["a truncated JPEG", [{ name: "x", type: "image/jpeg", bytes: fixture("photo.jpg").slice(0, 20_000) }], "file_corrupt"],
];
for (const [name, files, code] of failures) {
  test(`fails with ${code} for ${name}`, async () => {
    const result = await runSealJob(sealContext(), job(files));
    assert.equal(result.status, "failed");
    if (result.status === "failed") assert.equal(result.code, code);
  });
}

test("fails with file_missing when storage has no such file", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  sealJob.files[0]!.source.url = `${base}/src/nothing-here`;
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status === "failed" && result.code, "file_missing");
});

test("throws a transient error when storage cannot be reached", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  sealJob.files[0]!.source.url = "http://127.0.0.1:9/unreachable";
  await assert.rejects(runSealJob(sealContext(), sealJob), TransientJobError);
});

test("sniffs types from bytes and checks containers", () => {
  assert.equal(sniffType(fixture("photo.jpg")), "image/jpeg");
  assert.equal(sniffType(fixture("photo.png")), "image/png");
  assert.equal(sniffType(fixture("clip.mp4")), "video/mp4");
  assert.ok(isWellFormed(fixture("clip.mp4"), "video/mp4"));
  assert.equal(isWellFormed(fixture("clip.mp4").slice(0, 5000), "video/mp4"), false);
  const png = fixture("photo.png").slice();
  png[40]! ^= 0xff;
  assert.equal(isWellFormed(png, "image/png"), false);
});

test("an authority that is down during a file's signature is a transient error, not a corrupt file", async () => {
  const context = sealContext();
  const down = { ...context, authority: { ...context.authority, respond: async () => Promise.reject(new TimestampUnavailableError("authority unreachable")) } };
  await assert.rejects(runSealJob(down, job([{ name: "photo.jpg", type: "image/jpeg" }])), TimestampUnavailableError);
});

test("the manifest is timestamped while the last copy is still being written, and a copy that then fails to be written still fails the job", async () => {
  const context = sealContext();
  let manifestAsked: () => void = () => {};
  const manifestTimestamped = new Promise<void>((done) => (manifestAsked = done));
  const order: string[] = [];
  // The files' signatures from their own authority, so that a request to `authority` is the manifest's.
  const proofAuthority = {
    ...context.authority,
    respond: (request: Uint8Array, signal?: AbortSignal) => {
      order.push("manifest timestamped");
      manifestAsked();
      return context.authority.respond(request, signal);
    },
  };
  const refusing = createServer(async (req, res) => {
    for await (const _chunk of req);
    // Held until the manifest is timestamped (2 s at most: a job that waited for its copies would never ask).
    await Promise.race([manifestTimestamped, new Promise((done) => setTimeout(done, 2000))]);
    order.push("copy refused");
    res.writeHead(500).end();
  });
  await new Promise<void>((done) => refusing.listen(0, "127.0.0.1", done));
  try {
    const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
    sealJob.files[0]!.destination.url = `http://127.0.0.1:${(refusing.address() as { port: number }).port}/signed`;
    await assert.rejects(runSealJob({ ...context, authority: proofAuthority, signatureAuthority: context.authority }, sealJob), TransientJobError);
    assert.deepEqual(order, ["manifest timestamped", "copy refused"]);
  } finally {
    refusing.close();
  }
});

test("under a memory budget smaller than any file, files are sealed one at a time and every byte is given back", async () => {
  const budget = new ByteBudget(1);
  const result = await runSealJob(
    { ...sealContext(), budget },
    job([
      { name: "photo.jpg", type: "image/jpeg" },
      { name: "photo.png", type: "image/png" },
    ]),
  );
  assert.equal(result.status, "sealed");
  assert.equal(budget.inUse, 0);
});

test("a WebM video, which C2PA cannot carry, is sealed by the timestamped manifest alone: its copy is the original", async () => {
  const webm = fixture("clip.webm");
  const result = await runSealJob(
    sealContext(),
    job([
      { name: "clip.webm", type: "video/webm" },
      { name: "photo.jpg", type: "image/jpeg" },
    ]),
  );
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const [video, photo] = result.files;
  assert.equal(video!.sniffed_type, "video/webm");
  assert.equal(video!.signed_sha256, sha256(webm));
  assert.notEqual(photo!.signed_sha256, JSON.parse(result.manifest).files[1].sha256);
  assert.equal(JSON.parse(result.manifest).files[0].signed_sha256, sha256(webm));
});

test("the sealed manifest (version 2) says which file arrived with earlier Content Credentials, and each file's position", async () => {
  const first = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  const firstResult = await runSealJob(sealContext(), first);
  assert.equal(firstResult.status, "sealed");
  const signed = written.get(`/signed/${first.files[0]!.id}`)!;
  const sealJob = job([
    { name: "photo.jpg", type: "image/jpeg" },
    { name: "sealed.jpg", type: "image/jpeg", bytes: signed },
  ]);
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed" || firstResult.status !== "sealed") return;
  const manifest = JSON.parse(result.manifest);
  assert.equal(manifest.version, 2);
  assert.equal(manifest.organization_id, sealJob.proof.organization_id);
  assert.deepEqual(
    manifest.files.map((file: { position: number; prior_credentials: boolean }) => [file.position, file.prior_credentials]),
    [
      [1, false],
      [2, true],
    ],
  );
  assert.equal(JSON.parse(firstResult.manifest).files[0].prior_credentials, false);
});
