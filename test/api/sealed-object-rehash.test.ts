import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { packagedArtifactKey, proofArtifactKeys, signedFileKey } from "../../src/storage/objects/bucket.ts";
import { proofObjectChecks } from "../../src/storage/sealed-object-checks.ts";
import { REHASH_BUDGET, rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { runSweeps } from "../../src/scheduled.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_MANIFEST_SHA256, FIXTURE_TSR_BASE64 } from "./fixtures/sealed-proof.ts";
import { workerContext } from "../../src/domain/context.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

/** A proof sealed the way sealing leaves it: its artifacts and signed files in R2, then one UPDATE to sealed. */
async function sealedProof(options: { fileBytes?: number; withSeal?: boolean } = {}) {
  const org = await createOrganization();
  const { proofId, fileIds } = await insertPendingProof(org.id, "test", 2);
  const run = `run_${proofId}`;
  const keys = proofArtifactKeys(proofId, run);
  await env.FILES.put(keys.manifest, FIXTURE_MANIFEST);
  await env.FILES.put(
    keys.timestampResponse,
    Uint8Array.from(atob(FIXTURE_TSR_BASE64), (c) => c.charCodeAt(0)),
  );
  await env.FILES.put(keys.timestampChain, FIXTURE_CHAIN_PEM);
  if (options.withSeal) await env.FILES.put(packagedArtifactKey(proofId, run, "manifest.p7s"), "a seal");
  const signed: { id: string; key: string; bytes: Uint8Array }[] = [];
  for (const id of fileIds) {
    const bytes = crypto.getRandomValues(new Uint8Array(options.fileBytes ?? 4096));
    const key = signedFileKey(proofId, run, id, "image/jpeg");
    await env.FILES.put(key, bytes);
    await env.DB.prepare("UPDATE files SET signed_key = ?, signed_sha256 = ?, signed_size = ? WHERE id = ?")
      .bind(key, await sha256Hex(bytes), bytes.length, id)
      .run();
    signed.push({ id, key, bytes });
  }
  const now = new Date().toISOString();
  await env.DB.prepare(
    "UPDATE proofs SET status = 'sealed', sealing_run = ?, manifest_sha256 = ?, seal_certificate_sha256 = ?, timestamp_gen_time = ?, sealed_at = ?, updated_at = ? WHERE id = ?",
  )
    .bind(run, FIXTURE_MANIFEST_SHA256, options.withSeal ? "d".repeat(64) : null, now, now, now, proofId)
    .run();
  return { proofId, run, signed };
}

/** Runs the sweep, a minute later each time, until every object of the proof has been re-hashed at least `times` times. */
async function sweepUntilChecked(proofId: string, after: Date) {
  let now = after;
  for (let round = 0; round < 20; round++) {
    now = new Date(now.getTime() + 60_000);
    await rehashSealedObjects(workerContext(env), now);
    const checks = await proofObjectChecks(env.DB, proofId);
    if (checks.length > 0 && checks.every((check) => check.lastCheckedAt !== null && check.lastCheckedAt > after.toISOString())) return now;
  }
  throw new Error(`the objects of ${proofId} were not all re-hashed`);
}

afterEach(() => vi.restoreAllMocks());

describe("re-hash of sealed stored objects", () => {
  it("lists every object a sealed proof publishes and re-hashes within its row and byte budgets", async () => {
    const { proofId, signed } = await sealedProof({ fileBytes: 10_000, withSeal: true });
    // A byte budget: chain.pem and the first file, then the second file would pass 15,000 bytes (objects in key order, never checked).
    const first = await rehashSealedObjects(workerContext(env), new Date(), { objects: 100, bytes: 15_000, enrolProofs: 20 });
    // Enrolled whole: manifest.json, proof.tsr, chain.pem, manifest.p7s and both signed files.
    expect(first).toMatchObject({ enrolled: 6, checked: 2 });
    expect(first.bytes).toBeGreaterThan(10_000);
    expect(first.bytes).toBeLessThanOrEqual(15_000);
    const checks = await proofObjectChecks(env.DB, proofId);
    expect(checks.map((check) => check.entry).sort()).toEqual(
      ["chain.pem", "manifest.json", "manifest.p7s", "proof.tsr", ...signed.map((file) => `files/${file.id}.jpg`)].sort(),
    );
    expect(checks.filter((check) => check.lastCheckedAt !== null)).toHaveLength(2);
    // The queries of a run stay far within the 1,000 an invocation may make (each statement of a batch counts).
    await sealedProof();
    let queries = 0;
    const counting = new Proxy(env.DB, {
      get(target, name) {
        if (name === "prepare")
          return (sql: string) => {
            queries++;
            return target.prepare(sql);
          };
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const counted = await rehashSealedObjects(workerContext({ ...env, DB: counting }), new Date(), { objects: 100, bytes: 1 << 30, enrolProofs: 20 });
    expect(counted.checked).toBeGreaterThan(5);
    expect(queries).toBeLessThanOrEqual(counted.checked + 10);
    // A row budget.
    expect(await rehashSealedObjects(workerContext(env), new Date(), { objects: 2, bytes: 1 << 30, enrolProofs: 20 })).toMatchObject({
      enrolled: 0,
      checked: 2,
    });
    // An object larger than the whole budget is still hashed, alone.
    expect((await rehashSealedObjects(workerContext(env), new Date(), { objects: 100, bytes: 1, enrolProofs: 20 })).checked).toBe(1);
  });

  it("checks the objects re-hashed longest ago first, so every object comes round again", async () => {
    const { proofId } = await sealedProof();
    const start = new Date(Date.now() + 3_600_000);
    await sweepUntilChecked(proofId, start);
    const checks = await proofObjectChecks(env.DB, proofId);
    expect(checks.every((check) => check.matched === true)).toBe(true);
    // The artifacts D1 holds no hash for take the first one found; the manifest and the files keep the one recorded at sealing.
    const tsr = checks.find((check) => check.entry === "proof.tsr")!;
    expect(tsr.expectedSha256).toBe(tsr.foundSha256);
    expect(checks.find((check) => check.entry === "manifest.json")!.expectedSha256).toBe(FIXTURE_MANIFEST_SHA256);
    // The object re-hashed longest ago is the next one taken, whatever its key.
    const chosen = checks.find((check) => check.entry === "proof.tsr")!;
    await env.DB.prepare("UPDATE sealed_object_checks SET last_checked_at = '2001-01-01T00:00:00.000Z' WHERE object_key = ?").bind(chosen.objectKey).run();
    const later = new Date(Date.parse(start.toISOString()) + 3_600_000);
    expect((await rehashSealedObjects(workerContext(env), later, { ...REHASH_BUDGET, objects: 1 })).checked).toBe(1);
    const after = await proofObjectChecks(env.DB, proofId);
    expect(after.find((check) => check.objectKey === chosen.objectKey)!.lastCheckedAt).toBe(later.toISOString());
    expect(after.filter((check) => check.lastCheckedAt === later.toISOString())).toHaveLength(1);
  });

  it("marks a signed file changed by one byte (same size) altered, logs the alert line, and lists it for the operator", async () => {
    const { proofId, signed } = await sealedProof();
    const start = new Date(Date.now() + 7_200_000);
    const checkedAt = await sweepUntilChecked(proofId, start);
    const target = signed[0]!;
    const altered = target.bytes.slice();
    altered[100] = altered[100]! ^ 0x01;
    await env.FILES.put(target.key, altered);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await sweepUntilChecked(proofId, checkedAt);
    const check = (await proofObjectChecks(env.DB, proofId)).find((one) => one.fileId === target.id)!;
    expect(check).toMatchObject({ matched: false, expectedSha256: await sha256Hex(target.bytes), foundSha256: await sha256Hex(altered) });
    const lines = logged.mock.calls.map((args) => String(args[0])).filter((line) => line.includes('"sealed_object_altered"'));
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({
        level: "error",
        alert: "sealed_object_altered",
        proof_id: proofId,
        key: target.key,
        expected: await sha256Hex(target.bytes),
        found: await sha256Hex(altered),
      }),
    );
    const listed = await callJson("/admin/v1/altered-objects?limit=100", { key: ADMIN_TOKEN });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({ proof_id: proofId, key: target.key, file_id: target.id, missing: false, found_sha256: await sha256Hex(altered) }),
    );
    // Restored to its sealed bytes, it matches again at its next re-hash and leaves the list.
    await env.FILES.put(target.key, target.bytes);
    await sweepUntilChecked(proofId, new Date(Date.parse(check.lastCheckedAt!) + 1));
    const after = await callJson("/admin/v1/altered-objects?limit=100", { key: ADMIN_TOKEN });
    expect(after.body.data.map((row: { key: string }) => row.key)).not.toContain(target.key);
  });

  it("knows the sealed hashes of manifest.json, proof.tsr, chain.pem and manifest.p7s from sealing: one altered before its first re-hash is found at it", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test");
    const { deps } = dependencies(async (job) => sealedAnswer(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    // What the sealer answered (the same for the same proof: its manifest names the proof id only).
    const answer = sealedAnswer({ proof: { id: proofId }, files: [] } as unknown as SealJob);
    const artifacts = (await proofObjectChecks(env.DB, proofId)).filter((check) => check.fileId === null);
    const tsr = Uint8Array.from(atob(answer.tsr_base64), (char) => char.charCodeAt(0));
    expect(Object.fromEntries(artifacts.map((check) => [check.entry, [check.expectedSha256, check.lastCheckedAt]]))).toEqual({
      "manifest.json": [await sha256Hex(answer.manifest), null],
      "proof.tsr": [await sha256Hex(tsr), null],
      "chain.pem": [await sha256Hex(answer.chain_pem), null],
      "manifest.p7s": [await sha256Hex(Uint8Array.from(atob(answer.manifest_p7s_base64), (char) => char.charCodeAt(0))), null],
    });
    // proof.tsr replaced before any sweep ran: the first re-hash already finds it altered (it used to take what it found).
    const tsrKey = artifacts.find((check) => check.entry === "proof.tsr")!.objectKey;
    const altered = tsr.slice();
    altered[0] = altered[0]! ^ 0x01;
    await env.FILES.put(tsrKey, altered);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await sweepUntilChecked(proofId, new Date(Date.now() + 14_400_000));
    const checks = await proofObjectChecks(env.DB, proofId);
    expect(checks.find((check) => check.entry === "proof.tsr")).toMatchObject({ matched: false, foundSha256: await sha256Hex(altered) });
    expect(checks.filter((check) => check.fileId === null && check.entry !== "proof.tsr").every((check) => check.matched === true)).toBe(true);
  });

  it("reports a missing object as altered, through the per-minute cron's sweeps", async () => {
    const { proofId, run } = await sealedProof();
    const tsrKey = proofArtifactKeys(proofId, run).timestampResponse;
    await env.FILES.delete(tsrKey);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (let round = 0; round < 20; round++) {
      await runSweeps(workerContext(env), new Date(Date.now() + 86_400_000 + round * 60_000));
      if ((await proofObjectChecks(env.DB, proofId)).every((check) => check.lastCheckedAt !== null)) break;
    }
    const tsr = (await proofObjectChecks(env.DB, proofId)).find((check) => check.entry === "proof.tsr")!;
    expect(tsr).toMatchObject({ matched: false, foundSha256: null });
    const listed = await admin("/admin/v1/altered-objects?limit=100", undefined, "GET");
    expect(listed.body.data).toContainEqual(expect.objectContaining({ proof_id: proofId, entry: "proof.tsr", missing: true }));
  });

  it("lists altered objects a page at a time, and only for the admin token", async () => {
    expect((await callJson("/admin/v1/altered-objects")).status).toBe(401);
    const { proofId, run } = await sealedProof();
    const keys = proofArtifactKeys(proofId, run);
    await Promise.all([env.FILES.delete(keys.timestampResponse), env.FILES.delete(keys.timestampChain)]);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await sweepUntilChecked(proofId, new Date(Date.now() + 2 * 86_400_000));
    const first = await callJson("/admin/v1/altered-objects?limit=1", { key: ADMIN_TOKEN });
    expect(first.body.data).toHaveLength(1);
    expect(first.body.has_more).toBe(true);
    const second = await callJson(`/admin/v1/altered-objects?limit=1&cursor=${first.body.next_cursor}`, { key: ADMIN_TOKEN });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].key).not.toBe(first.body.data[0].key);
    // Cursors are signed since issue 28 (docs/adr/0030): one this API did not issue is invalid_cursor.
    expect((await callJson("/admin/v1/altered-objects?cursor=nonsense", { key: ADMIN_TOKEN })).body.code).toBe("invalid_cursor");
  });
});
