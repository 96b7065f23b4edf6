import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { artifactHashesKey, packagedArtifactKey, proofArtifactKeys, signedFileKey } from "../../src/storage/objects/bucket.ts";
import { storeArtifactHashes } from "../../src/storage/objects/artifact-hashes.ts";
import { lastRehashedAt, proofRehashes, type RehashCursor } from "../../src/storage/sealed-object-checks.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { runSweeps } from "../../src/scheduled.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_MANIFEST_SHA256, FIXTURE_TSR_BASE64 } from "./fixtures/sealed-proof.ts";
import { workerContext } from "../../src/domain/context.ts";
import { newShardedId, shardBinding, type ShardCode } from "../../src/db/shards.ts";
import type { Env } from "../../src/env.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const ALL = { objects: 1_000, bytes: 1 << 30, proofs: 100 };
const tsrBytes = () => Uint8Array.from(atob(FIXTURE_TSR_BASE64), (c) => c.charCodeAt(0));
const shardEnv = env as unknown as Env;
const binding = (shard: ShardCode) => shardBinding(shardEnv, shard)!;

/** An organization created straight into a shard's database, its id naming that shard. */
async function organizationIn(shard: ShardCode): Promise<string> {
  const id = newShardedId("org", shard);
  const now = new Date().toISOString();
  await binding(shard)
    .prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES (?, ?, 0, ?, ?)")
    .bind(id, `Org ${id}`, now, now)
    .run();
  return id;
}

/**
 * A proof sealed the way sealing leaves it: its artifacts, their hashes (unless `legacy`: sealed before migration
 * 0026 recorded them there) and signed files in R2, then one UPDATE to sealed.
 */
async function sealedProof(options: { fileBytes?: number; withSeal?: boolean; shard?: ShardCode; legacy?: boolean } = {}) {
  const shard = options.shard ?? "00";
  const organizationId = shard === "00" ? (await createOrganization()).id : await organizationIn(shard);
  const db = binding(shard);
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 2);
  const run = `run_${proofId}`;
  const keys = proofArtifactKeys(proofId, run);
  await env.FILES.put(keys.manifest, FIXTURE_MANIFEST);
  await env.FILES.put(keys.timestampResponse, tsrBytes());
  await env.FILES.put(keys.timestampChain, FIXTURE_CHAIN_PEM);
  const seal = new TextEncoder().encode("a seal");
  if (options.withSeal) await env.FILES.put(packagedArtifactKey(proofId, run, "manifest.p7s"), seal);
  const hashed = async (bytes: Uint8Array | string) => ({ sha256: await sha256Hex(bytes), size: typeof bytes === "string" ? bytes.length : bytes.length });
  if (!options.legacy)
    await storeArtifactHashes(env, proofId, run, {
      "manifest.json": await hashed(FIXTURE_MANIFEST),
      "proof.tsr": await hashed(tsrBytes()),
      "chain.pem": await hashed(FIXTURE_CHAIN_PEM),
      "manifest.p7s": await hashed(seal),
    });
  const signed: { id: string; key: string; bytes: Uint8Array }[] = [];
  for (const id of fileIds) {
    const bytes = crypto.getRandomValues(new Uint8Array(options.fileBytes ?? 4096));
    const key = signedFileKey(proofId, run, id, "image/jpeg");
    await env.FILES.put(key, bytes);
    await db
      .prepare("UPDATE files SET signed_key = ?, signed_sha256 = ?, signed_size = ? WHERE id = ?")
      .bind(key, await sha256Hex(bytes), bytes.length, id)
      .run();
    signed.push({ id, key, bytes });
  }
  const now = new Date().toISOString();
  await db
    .prepare(
      "UPDATE proofs SET status = 'sealed', sealing_run = ?, manifest_sha256 = ?, seal_certificate_sha256 = ?, timestamp_gen_time = ?, sealed_at = ?, updated_at = ? WHERE id = ?",
    )
    .bind(run, FIXTURE_MANIFEST_SHA256, options.withSeal ? "d".repeat(64) : null, now, now, now, proofId)
    .run();
  return { proofId, run, signed, sealedAt: now, db };
}

/** The rows the proof leaves in sealed_object_checks. */
async function rowsOf(db: D1Database, proofId: string) {
  return (
    await db
      .prepare(
        "SELECT entry, file_id, expected_sha256, found_sha256, matched, mismatch_since, last_checked_at FROM sealed_object_checks WHERE proof_id = ? ORDER BY entry",
      )
      .bind(proofId)
      .all<{
        entry: string;
        file_id: string | null;
        expected_sha256: string | null;
        found_sha256: string | null;
        matched: number | null;
        mismatch_since: string | null;
        last_checked_at: string;
      }>()
  ).results;
}

/** Runs the sweep on the shard, a minute later each time, until the proof's objects were re-hashed after `after`. */
async function sweepUntilRehashed(proofId: string, after: Date, shard: ShardCode = "00") {
  let now = after;
  for (let round = 0; round < 20; round++) {
    now = new Date(now.getTime() + 60_000);
    await rehashSealedObjects(workerContext(shardEnv, shard), now, ALL);
    const { checkedAt } = await proofRehashes(binding(shard), proofId);
    if (checkedAt !== null && checkedAt > after.toISOString()) return now;
  }
  throw new Error(`the objects of ${proofId} were not re-hashed`);
}

afterEach(() => vi.restoreAllMocks());

describe("when a proof was last re-hashed, derived from the shard's cursor", () => {
  const cursor: RehashCursor = {
    roundStartedAt: "2026-11-27T10:00:00.000Z",
    position: 40,
    objectOffset: 0,
    previousRoundStartedAt: "2026-11-27T09:00:00.000Z",
    previousRoundCompletedAt: "2026-11-27T09:59:00.000Z",
    previousRoundEnd: 30,
    artifactHashesFrom: 1,
  };
  const early = "2026-11-27T08:00:00.000Z";

  it("this round at or before the position, the previous round after it when that round reached it, else never", () => {
    expect(lastRehashedAt(cursor, { seq: 40, sealedAt: early })).toBe("2026-11-27T10:00:00.000Z");
    expect(lastRehashedAt(cursor, { seq: 1, sealedAt: early })).toBe("2026-11-27T10:00:00.000Z");
    // A proof the previous round passed that this round has not reached yet: then, not now.
    expect(lastRehashedAt({ ...cursor, position: 10 }, { seq: 30, sealedAt: early })).toBe("2026-11-27T09:00:00.000Z");
    // Sealed after the previous round passed its place, not reached by this one: never re-hashed.
    expect(lastRehashedAt({ ...cursor, position: 10 }, { seq: 31, sealedAt: early })).toBeNull();
    expect(lastRehashedAt(cursor, { seq: 41, sealedAt: early })).toBeNull();
    // No round yet, or not sealed.
    expect(
      lastRehashedAt({ ...cursor, roundStartedAt: null, position: 0, previousRoundEnd: 0, previousRoundStartedAt: null }, { seq: 1, sealedAt: early }),
    ).toBeNull();
    expect(lastRehashedAt(cursor, { seq: null, sealedAt: null })).toBeNull();
  });

  it("never a time before the proof was sealed: sealed after its round started, the sealing is the time given", () => {
    expect(lastRehashedAt(cursor, { seq: 40, sealedAt: "2026-11-27T10:30:00.000Z" })).toBe("2026-11-27T10:30:00.000Z");
    expect(lastRehashedAt({ ...cursor, position: 0 }, { seq: 30, sealedAt: "2026-11-27T09:10:00.000Z" })).toBe("2026-11-27T09:10:00.000Z");
  });

  it("follows the sweep: re-hashed this round, then the previous round while the next has not reached it, and a proof sealed after", async () => {
    const first = await sealedProof();
    const t1 = new Date(Date.now() + 86_400_000);
    await sweepUntilRehashed(first.proofId, t1);
    const firstAt = (await proofRehashes(env.DB, first.proofId)).checkedAt!;
    expect(firstAt > t1.toISOString()).toBe(true);
    // Sealed after the cursor passed: never re-hashed, until the cursor reaches it (after the first, in this round).
    const second = await sealedProof();
    expect((await proofRehashes(env.DB, second.proofId)).checkedAt).toBeNull();
    const t2 = new Date(Date.parse(firstAt) + 3_600_000);
    await rehashSealedObjects(workerContext(env), t2, ALL);
    expect((await proofRehashes(env.DB, second.proofId)).checkedAt).toBe(firstAt > second.sealedAt ? firstAt : second.sealedAt);
    // The next round starts; a run that re-hashes only the first proof of the shard leaves the later ones at the previous round.
    const t3 = new Date(t2.getTime() + 3_600_000);
    await rehashSealedObjects(workerContext(env), t3, { objects: 1, bytes: 1 << 30, proofs: 1 });
    expect((await proofRehashes(env.DB, second.proofId)).checkedAt).toBe(firstAt > second.sealedAt ? firstAt : second.sealedAt);
    // Reached a minute later in the same round: re-hashed in the round started at t3 (the time given is its start).
    await rehashSealedObjects(workerContext(env), new Date(t3.getTime() + 60_000), ALL);
    expect((await proofRehashes(env.DB, second.proofId)).checkedAt).toBe(t3.toISOString());
  });
});

describe("re-hash of sealed stored objects from one cursor per shard", () => {
  it("re-hashes every object of whole proofs within the object and byte budgets, and leaves no row for what matched", async () => {
    const { proofId, db } = await sealedProof({ fileBytes: 10_000, withSeal: true });
    const done = await sweepUntilRehashed(proofId, new Date(Date.now() + 2 * 86_400_000));
    expect(await rowsOf(db, proofId)).toEqual([]);
    // An object budget: one object of the first proof of the next round, which is not finished by it.
    const next = new Date(done.getTime() + 60_000);
    await rehashSealedObjects(workerContext(env), next, ALL);
    expect(await rehashSealedObjects(workerContext(env), new Date(next.getTime() + 60_000), { objects: 1, bytes: 1 << 30, proofs: 20 })).toMatchObject({
      checked: 1,
      proofs: 0,
    });
    // A byte budget: an object larger than it is still re-hashed, alone.
    expect((await rehashSealedObjects(workerContext(env), new Date(next.getTime() + 120_000), { objects: 100, bytes: 1, proofs: 20 })).checked).toBe(1);
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
    const counted = await rehashSealedObjects(workerContext({ ...env, DB: counting }), new Date(next.getTime() + 180_000));
    expect(counted.checked).toBeGreaterThan(5);
    expect(queries).toBeLessThanOrEqual(12);
  });

  it("re-hashes a proof larger than a run's budget over several runs: it counts as re-hashed in the round once all its objects are", async () => {
    const { proofId, signed, db } = await sealedProof({ withSeal: true });
    // Its objects in order: manifest.json, artifact-hashes.json, proof.tsr, chain.pem, manifest.p7s, then its two files
    // in capture order: the first of them is the one altered, the other still to come after it.
    const first = await db.prepare("SELECT id FROM files WHERE proof_id = ? ORDER BY created_at, id LIMIT 1").bind(proofId).first<{ id: string }>();
    const target = signed.find((file) => file.id === first!.id)!;
    const altered = target.bytes.slice();
    altered[7] = altered[7]! ^ 0x01;
    await env.FILES.put(target.key, altered);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const found = await sweepUntilRehashed(proofId, new Date(Date.now() + 9 * 86_400_000));
    expect((await proofRehashes(db, proofId)).findings).toEqual([expect.objectContaining({ fileId: target.id, matched: false })]);
    const before = (await proofRehashes(db, proofId)).checkedAt;
    await env.FILES.put(target.key, target.bytes);
    // One object a run: the first run ends the round (the cursor is past this proof) and starts the next.
    const runAt = (run: number) => new Date(found.getTime() + run * 60_000);
    let restored: { at: string; rehashes: Awaited<ReturnType<typeof proofRehashes>> } | null = null;
    let run = 1;
    for (; run <= 400; run++) {
      await rehashSealedObjects(workerContext(env), runAt(run), { objects: 1, bytes: 1 << 30, proofs: 20 });
      const rehashes = await proofRehashes(db, proofId);
      const row = rehashes.findings.find((one) => one.fileId === target.id);
      if (row?.matched === true && restored === null) restored = { at: runAt(run).toISOString(), rehashes };
      if (row === undefined) break;
    }
    // Found restored while its other file was still to come: its row says when, and the proof is still at its previous round.
    expect(restored?.rehashes.checkedAt).toBe(before);
    expect(restored?.rehashes.findings).toEqual([
      expect.objectContaining({ fileId: target.id, matched: true, foundSha256: await sha256Hex(target.bytes), lastCheckedAt: restored?.at }),
    ]);
    // Its last object re-hashed: the row goes, and the proof was re-hashed in the round started by the first of these runs.
    expect(await rowsOf(db, proofId)).toEqual([]);
    expect((await proofRehashes(db, proofId)).checkedAt).toBe(runAt(1).toISOString());
  });

  it("marks a signed file changed by one byte (same size) altered, logs the alert line, lists it, and drops its row once restored", async () => {
    const { proofId, signed, db } = await sealedProof();
    const checkedAt = await sweepUntilRehashed(proofId, new Date(Date.now() + 3 * 86_400_000));
    const target = signed[0]!;
    const altered = target.bytes.slice();
    altered[100] = altered[100]! ^ 0x01;
    await env.FILES.put(target.key, altered);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const foundAt = await sweepUntilRehashed(proofId, checkedAt);
    const rehashes = await proofRehashes(db, proofId);
    expect(rehashes.findings).toHaveLength(1);
    expect(rehashes.findings[0]).toMatchObject({
      fileId: target.id,
      matched: false,
      expectedSha256: await sha256Hex(target.bytes),
      foundSha256: await sha256Hex(altered),
      lastCheckedAt: foundAt.toISOString(),
      mismatchSince: foundAt.toISOString(),
    });
    const lines = logged.mock.calls.map((args) => String(args[0])).filter((line) => line.includes('"sealed_object_altered"'));
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ proof_id: proofId, key: target.key, expected: await sha256Hex(target.bytes), found: await sha256Hex(altered) }),
    );
    const listed = await callJson("/admin/v1/altered-objects?limit=100", { key: ADMIN_TOKEN });
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({ proof_id: proofId, key: target.key, file_id: target.id, missing: false, found_sha256: await sha256Hex(altered) }),
    );
    // Still altered at the next round: the row keeps when it was first found.
    const again = await sweepUntilRehashed(proofId, foundAt);
    expect((await proofRehashes(db, proofId)).findings[0]).toMatchObject({ lastCheckedAt: again.toISOString(), mismatchSince: foundAt.toISOString() });
    // Restored to its sealed bytes, it matches again at its next re-hash: its row goes, and it leaves the list.
    await env.FILES.put(target.key, target.bytes);
    await sweepUntilRehashed(proofId, again);
    expect(await rowsOf(db, proofId)).toEqual([]);
    const after = await callJson("/admin/v1/altered-objects?limit=100", { key: ADMIN_TOKEN });
    expect(after.body.data.map((row: { key: string }) => row.key)).not.toContain(target.key);
  });

  it("compares manifest.json, proof.tsr, chain.pem and manifest.p7s with the hashes sealing stored: one altered before its first re-hash is found at it", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test");
    const { deps } = dependencies(async (job) => sealedAnswer(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    // What the sealer answered (the same for the same proof: its manifest names the proof id only).
    const answer = sealedAnswer({ proof: { id: proofId }, files: [] } as unknown as SealJob);
    const run = (await env.DB.prepare("SELECT sealing_run FROM proofs WHERE id = ?").bind(proofId).first<{ sealing_run: string }>())!.sealing_run;
    // Sealing leaves no row: the hashes are in the run's artifact-hashes.json.
    expect(await rowsOf(env.DB, proofId)).toEqual([]);
    const tsr = Uint8Array.from(atob(answer.tsr_base64), (char) => char.charCodeAt(0));
    const stored = (await (await env.FILES.get(artifactHashesKey(proofId, run)))!.json()) as Record<string, { sha256: string }>;
    expect(Object.fromEntries(Object.entries(stored).map(([entry, { sha256 }]) => [entry, sha256]))).toEqual({
      "manifest.json": await sha256Hex(answer.manifest),
      "proof.tsr": await sha256Hex(tsr),
      "chain.pem": await sha256Hex(answer.chain_pem),
      "manifest.p7s": await sha256Hex(Uint8Array.from(atob(answer.manifest_p7s_base64), (char) => char.charCodeAt(0))),
    });
    // proof.tsr replaced before any sweep ran: the first re-hash already finds it altered.
    const altered = tsr.slice();
    altered[0] = altered[0]! ^ 0x01;
    await env.FILES.put(proofArtifactKeys(proofId, run).timestampResponse, altered);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await sweepUntilRehashed(proofId, new Date(Date.now() + 4 * 86_400_000));
    // (The stand-in sealer stores no signed copy: the files are missing, found so too.)
    const rows = (await rowsOf(env.DB, proofId)).filter((row) => row.file_id === null);
    expect(rows).toEqual([
      expect.objectContaining({ entry: "proof.tsr", matched: 0, expected_sha256: await sha256Hex(tsr), found_sha256: await sha256Hex(altered) }),
    ]);
  });

  it("reports a missing object as altered, through the per-minute cron's sweeps, and a lost artifact-hashes.json too", async () => {
    const { proofId, run } = await sealedProof();
    await env.FILES.delete(proofArtifactKeys(proofId, run).timestampResponse);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const after = new Date(Date.now() + 5 * 86_400_000).toISOString();
    for (let round = 0; round < 20; round++) {
      await runSweeps(workerContext(env), new Date(Date.parse(after) + (round + 1) * 60_000));
      if (((await proofRehashes(env.DB, proofId)).checkedAt ?? "") > after) break;
    }
    expect((await proofRehashes(env.DB, proofId)).findings).toEqual([expect.objectContaining({ entry: "proof.tsr", foundSha256: null, matched: false })]);
    const listed = await admin("/admin/v1/altered-objects?limit=100", undefined, "GET");
    expect(listed.body.data).toContainEqual(expect.objectContaining({ proof_id: proofId, entry: "proof.tsr", missing: true }));
    // The hashes sealing stored, deleted: that is a finding itself (the artifacts then have nothing to be compared with).
    const lost = await sealedProof();
    await env.FILES.delete(artifactHashesKey(lost.proofId, lost.run));
    await sweepUntilRehashed(lost.proofId, new Date(Date.parse(after) + 86_400_000));
    expect((await proofRehashes(env.DB, lost.proofId)).findings).toEqual([expect.objectContaining({ entry: "artifact-hashes.json", foundSha256: null })]);
  });

  it("keeps the artifacts' hashes of a proof sealed before migration 0026 in its rows, and records one first found when none was", async () => {
    const { proofId, run, db } = await sealedProof({ legacy: true });
    const keys = proofArtifactKeys(proofId, run);
    // Sealed before migration 0026: before the first proof the cursor expects an artifact-hashes.json of.
    await db.prepare("UPDATE rehash_cursor SET artifact_hashes_from = (SELECT rehash_seq FROM proofs WHERE id = ?) + 1").bind(proofId).run();
    // As migration 0026 leaves such a proof: proof.tsr's row holds the hash recorded at sealing; chain.pem has none yet.
    await db
      .prepare("INSERT INTO sealed_object_checks (object_key, proof_id, entry, expected_sha256, matched) VALUES (?, ?, 'proof.tsr', ?, NULL)")
      .bind(keys.timestampResponse, proofId, await sha256Hex(tsrBytes()))
      .run();
    const first = await sweepUntilRehashed(proofId, new Date(Date.now() + 6 * 86_400_000));
    expect(await rowsOf(db, proofId)).toEqual([
      expect.objectContaining({ entry: "chain.pem", matched: 1, expected_sha256: await sha256Hex(FIXTURE_CHAIN_PEM) }),
      expect.objectContaining({ entry: "proof.tsr", matched: 1, expected_sha256: await sha256Hex(tsrBytes()) }),
    ]);
    // A row already matched with its hash is not written again at each round.
    const settled = await rowsOf(db, proofId);
    const second = await sweepUntilRehashed(proofId, first);
    expect(await rowsOf(db, proofId)).toEqual(settled);
    // Replaced, it is found altered against the row's hash; the row stays once restored, matched.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await env.FILES.put(keys.timestampResponse, "another token");
    const third = await sweepUntilRehashed(proofId, second);
    expect((await proofRehashes(db, proofId)).findings).toEqual([expect.objectContaining({ entry: "proof.tsr", expectedSha256: await sha256Hex(tsrBytes()) })]);
    await env.FILES.put(keys.timestampResponse, tsrBytes());
    await sweepUntilRehashed(proofId, third);
    expect((await proofRehashes(db, proofId)).findings).toEqual([]);
    expect((await rowsOf(db, proofId)).map((row) => [row.entry, row.matched])).toEqual([
      ["chain.pem", 1],
      ["proof.tsr", 1],
    ]);
  });

  it("raises no alarm for a proof the Worker before migration 0026 sealed after it was applied: its artifacts' rows hold their hashes", async () => {
    // Sealed between `migrations apply` and `wrangler deploy` (forger session 5, F5): numbered by the trigger at or
    // after the first proof the cursor expects an artifact-hashes.json of, but sealed by the Worker that wrote its
    // artifacts' hashes in rows instead.
    const { proofId, run, db } = await sealedProof({ legacy: true, withSeal: true });
    const from = await db.prepare("SELECT artifact_hashes_from FROM rehash_cursor WHERE id = 1").first<number>("artifact_hashes_from");
    expect(await db.prepare("SELECT rehash_seq FROM proofs WHERE id = ?").bind(proofId).first<number>("rehash_seq")).toBeGreaterThanOrEqual(from!);
    const keys = proofArtifactKeys(proofId, run);
    const artifacts: [string, string, Uint8Array | string][] = [
      [keys.timestampResponse, "proof.tsr", tsrBytes()],
      [keys.timestampChain, "chain.pem", FIXTURE_CHAIN_PEM],
      [packagedArtifactKey(proofId, run, "manifest.p7s"), "manifest.p7s", new TextEncoder().encode("a seal")],
    ];
    for (const [key, entry, bytes] of artifacts)
      await db
        .prepare("INSERT INTO sealed_object_checks (object_key, proof_id, entry, expected_sha256, size, matched) VALUES (?, ?, ?, ?, ?, NULL)")
        .bind(key, proofId, entry, await sha256Hex(bytes), bytes.length)
        .run();
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const first = await sweepUntilRehashed(proofId, new Date(Date.now() + 7 * 86_400_000));
    expect((await proofRehashes(db, proofId)).findings).toEqual([]);
    expect(alerts.mock.calls.filter(([line]) => String(line).includes(proofId))).toEqual([]);
    // Its artifacts are compared with their rows, as those of a proof sealed before: one replaced is found.
    await env.FILES.put(keys.timestampChain, "another chain");
    await sweepUntilRehashed(proofId, first);
    expect((await proofRehashes(db, proofId)).findings).toEqual([
      expect.objectContaining({ entry: "chain.pem", expectedSha256: await sha256Hex(FIXTURE_CHAIN_PEM), matched: false }),
    ]);
  });

  it("never takes a planted artifact-hashes.json over the rows holding a proof's artifact hashes, nor deletes them", async () => {
    // Forger session 7, G5: the rows are what an insider with the bucket alone cannot write; the object beside them was
    // taken over them, and its matches then deleted the rows. First a proof sealed before migration 0026, then one the
    // Worker before it sealed after it was applied (F5: numbered after the cursor's artifact_hashes_from).
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    let after = new Date(Date.now() + 8 * 86_400_000);
    for (const beforeMigration of [true, false]) {
      const { proofId, run, db } = await sealedProof({ legacy: true, withSeal: true });
      if (beforeMigration)
        await db.prepare("UPDATE rehash_cursor SET artifact_hashes_from = (SELECT rehash_seq FROM proofs WHERE id = ?) + 1").bind(proofId).run();
      const keys = proofArtifactKeys(proofId, run);
      const seal = new TextEncoder().encode("a seal");
      const genuine = {
        "manifest.json": { sha256: FIXTURE_MANIFEST_SHA256, size: FIXTURE_MANIFEST.length },
        "proof.tsr": { sha256: await sha256Hex(tsrBytes()), size: tsrBytes().length },
        "chain.pem": { sha256: await sha256Hex(FIXTURE_CHAIN_PEM), size: FIXTURE_CHAIN_PEM.length },
        "manifest.p7s": { sha256: await sha256Hex(seal), size: seal.length },
      };
      const artifacts: [string, "proof.tsr" | "chain.pem" | "manifest.p7s"][] = [
        [keys.timestampResponse, "proof.tsr"],
        [keys.timestampChain, "chain.pem"],
        [packagedArtifactKey(proofId, run, "manifest.p7s"), "manifest.p7s"],
      ];
      for (const [key, entry] of artifacts)
        await db
          .prepare("INSERT INTO sealed_object_checks (object_key, proof_id, entry, expected_sha256, size, matched) VALUES (?, ?, ?, ?, ?, NULL)")
          .bind(key, proofId, entry, genuine[entry].sha256, genuine[entry].size)
          .run();
      after = await sweepUntilRehashed(proofId, after);
      expect((await proofRehashes(db, proofId)).findings).toEqual([]);
      const rows = (await rowsOf(db, proofId)).map((row) => [row.entry, row.expected_sha256]);
      // The insider replaces the token and writes an artifact-hashes.json vouching for it (its manifest entry D1's).
      const forged = new TextEncoder().encode("not the sealed token");
      await env.FILES.put(keys.timestampResponse, forged);
      await storeArtifactHashes(env, proofId, run, { ...genuine, "proof.tsr": { sha256: await sha256Hex(forged), size: forged.length } });
      after = await sweepUntilRehashed(proofId, after);
      after = await sweepUntilRehashed(proofId, after);
      expect((await proofRehashes(db, proofId)).findings).toEqual([
        expect.objectContaining({ entry: "artifact-hashes.json", matched: false }),
        expect.objectContaining({ entry: "proof.tsr", expectedSha256: genuine["proof.tsr"].sha256, foundSha256: await sha256Hex(forged), matched: false }),
      ]);
      expect(alerts.mock.calls.some(([line]) => String(line).includes(proofId) && String(line).includes('"entry":"proof.tsr"'))).toBe(true);
      // The token restored and the object gone: no finding left, and the rows still hold the sealed hashes.
      await env.FILES.put(keys.timestampResponse, tsrBytes());
      await env.FILES.delete(artifactHashesKey(proofId, run));
      after = await sweepUntilRehashed(proofId, after);
      after = await sweepUntilRehashed(proofId, after);
      expect((await proofRehashes(db, proofId)).findings).toEqual([]);
      expect((await rowsOf(db, proofId)).map((row) => [row.entry, row.expected_sha256])).toEqual(rows);
      // An artifact-hashes.json of the genuine hashes: beside a proof sealed before the migration it is still a finding
      // (sealing never wrote one); agreeing with the rows of the F5 proof, it changes nothing. The rows stay.
      await storeArtifactHashes(env, proofId, run, genuine);
      after = await sweepUntilRehashed(proofId, after);
      after = await sweepUntilRehashed(proofId, after);
      expect((await proofRehashes(db, proofId)).findings.map((finding) => finding.entry)).toEqual(beforeMigration ? ["artifact-hashes.json"] : []);
      expect((await rowsOf(db, proofId)).map((row) => [row.entry, row.expected_sha256])).toEqual(
        beforeMigration ? [["artifact-hashes.json", null], ...rows] : rows,
      );
    }
  });

  it("walks each shard's proofs from that shard's own cursor, as each shard's message of the sweeps queue runs it", async () => {
    const proofs = await Promise.all((["00", "01", "02"] as const).map(async (shard) => ({ shard, ...(await sealedProof({ shard })) })));
    const target = proofs[2]!;
    const altered = target.signed[0]!.bytes.slice();
    altered[0] = altered[0]! ^ 0x01;
    await env.FILES.put(target.signed[0]!.key, altered);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const reached = async () =>
      (await Promise.all(proofs.map(({ shard, proofId }) => proofRehashes(binding(shard), proofId)))).every((one) => one.checkedAt !== null);
    // The sweep as the sweeps queue's consumer runs it for each shard's message (its fan-out: test/api/shards-sweeps.test.ts).
    for (let round = 1; round <= 5 && !(await reached()); round++)
      for (const { shard } of proofs) await rehashSealedObjects(workerContext(shardEnv, shard), new Date(Date.now() + 7 * 86_400_000 + round * 60_000), ALL);
    for (const { shard, proofId } of proofs) {
      const rehashes = await proofRehashes(binding(shard), proofId);
      expect(rehashes.checkedAt).not.toBeNull();
      expect(rehashes.findings.map((check) => check.fileId)).toEqual(shard === "02" ? [target.signed[0]!.id] : []);
      // Each shard's cursor has passed its own proof, and holds the only rows of it: none elsewhere.
      const seq = (await binding(shard).prepare("SELECT rehash_seq FROM proofs WHERE id = ?").bind(proofId).first<{ rehash_seq: number }>())!.rehash_seq;
      const cursor = (
        await binding(shard).prepare("SELECT position, previous_round_end FROM rehash_cursor").all<{ position: number; previous_round_end: number }>()
      ).results;
      expect(cursor).toHaveLength(1);
      expect(Math.max(cursor[0]!.position, cursor[0]!.previous_round_end)).toBeGreaterThanOrEqual(seq);
    }
  });

  it("lists altered objects a page at a time, and only for the admin token", async () => {
    expect((await callJson("/admin/v1/altered-objects")).status).toBe(401);
    const { proofId, run } = await sealedProof();
    const keys = proofArtifactKeys(proofId, run);
    await Promise.all([env.FILES.delete(keys.timestampResponse), env.FILES.delete(keys.timestampChain)]);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await sweepUntilRehashed(proofId, new Date(Date.now() + 8 * 86_400_000));
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
