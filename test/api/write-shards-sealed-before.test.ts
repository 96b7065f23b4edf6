import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { database } from "../../src/db/client.ts";
import { shardDatabase } from "../../src/db/shards.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { sealedBytesPrefix } from "../../src/storage/objects/bucket.ts";
import { phashBands } from "../../shared/perceptual-fingerprint.ts";
import type { PerceptualFingerprint, SealJob } from "../../shared/sealer-protocol.ts";
import { admin, call } from "./support/client.ts";
import { captureCall, randomJpeg, tokenOf } from "./support/capture.ts";
import { createKey } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { asSealedBeforeTheRecord } from "./support/proof-files.ts";
import { countRoundTrips } from "./support/round-trips.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { openEveryShard, SHARD_BINDING, shardBindings as bindings, statementsPreparedOn, type TestShard as Shard } from "./support/write-shards.ts";

/**
 * `sealed_before` and the similarity look-up of an organization writing past its home shard (docs/adr/0065, 0070;
 * forger session 9, W7): an earlier proof holding the same bytes is named whichever of the organization's shards it
 * and the new proof are in, each index entry confirmed and its files read in the shard its proof id names, the file
 * rows and prints sealed before the index read home; another organization's proof on a shard both use is never named,
 * a shard not the organization's never asked, and an organization in one shard seals with the statements it always did.
 */
openEveryShard();

const PHOTO: PerceptualFingerprint = { phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" };
/** One bit flipped in each of the four pHash bands: found by band neighbours, 4 bits apart. */
const NEAR: PerceptualFingerprint = { phash: "a5c2f00e3cc25a97", dhash: "0f0f3c3cf0f05a5b" };

/** An organization living on `home`, with a test key made before any write shard. */
async function organizationOn(home: Shard) {
  const created = await admin("/admin/v1/organizations", { name: `Org ${crypto.randomUUID()}`, shard: home });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  return { id, testKey: (await freshKey(id)).key };
}

const freshKey = (organizationId: string) => createKey(organizationId, { mode: "test", rate_limit_per_minute: 1000 });

async function addWriteShard(organizationId: string, shard: Shard) {
  expect((await admin(`/admin/v1/organizations/${organizationId}/write-shards`, { shard })).status).toBe(200);
}

/** Declares and uploads these exact bytes through the capture link, as the page does. */
async function uploadBytes(token: string, photo: { bytes: Uint8Array; sha256: string }) {
  const declared = await captureCall(token, "/files", {
    body: {
      step_id: "photos",
      content_type: "image/jpeg",
      size: photo.bytes.length,
      sha256: photo.sha256,
      capture: { method: "camera", device_time: new Date().toISOString(), width: 4032, height: 3024 },
    },
  });
  expect(declared.status).toBe(201);
  const part = declared.body.upload.parts[0];
  const put = await call(part.url, {
    method: "PUT",
    rawBody: photo.bytes as unknown as string,
    headers: { ...part.headers, "Content-Length": String(photo.bytes.length) },
  });
  await put.body?.cancel();
  expect(put.status).toBe(200);
}

/** A capture of `photo` completed through the API and sealed by the stand-in sealer, in the shard its session is written to. */
async function sealedCapture(key: string, photo: { bytes: Uint8Array; sha256: string }) {
  const created = await createSession(key, baseSession());
  const token = tokenOf(created.body.capture_url);
  await uploadBytes(token, photo);
  const done = await captureCall(token, "/complete", { body: {} });
  expect(done.status).toBe(200);
  const shard = (created.body.id as string).slice(4, 6) as Shard;
  const { deps } = dependencies(async (job: SealJob) => sealedAnswer(job));
  expect(await sealProof({ ...deps, db: shardDatabase(env, shard) }, done.body.proof_id)).toBe("sealed");
  return { proofId: done.body.proof_id as string, shard };
}

/** A pending one-file proof of the organization in `shard`, its original's hash `sha256` when given. */
async function pendingIn(shard: Shard, organizationId: string, sha256?: string) {
  const binding = bindings[SHARD_BINDING[shard]];
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1, shard);
  if (sha256) await binding.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(sha256, fileIds[0]).run();
  const row = await binding.prepare("SELECT sha256 FROM files WHERE id = ?").bind(fileIds[0]).first<{ sha256: string }>();
  return { proofId, fileId: fileIds[0]!, sha256: row!.sha256 };
}

/** Seals the pending proof in `shard` by the stand-in sealer, its photo fingerprinted as `print` (none when not given). */
async function seal(shard: Shard, proofId: string, print?: PerceptualFingerprint) {
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => ({ ...file, fingerprint: print ?? null, crop_fingerprints: [], query_crop_fingerprints: [] }));
    return answer;
  });
  expect(await sealProof({ ...deps, db: database(bindings[SHARD_BINDING[shard]]) }, proofId)).toBe("sealed");
}

/**
 * Seals, in `shard`, a pending one-file proof of the organization, its original's hash `sha256` when given, its photo
 * fingerprinted as `print` (none when not given); `beforeSealing` runs once its hash is known.
 */
async function sealedIn(
  shard: Shard,
  organizationId: string,
  options: { sha256?: string; print?: PerceptualFingerprint; beforeSealing?: (sha256: string) => Promise<void> } = {},
) {
  const pending = await pendingIn(shard, organizationId, options.sha256);
  await options.beforeSealing?.(pending.sha256);
  await seal(shard, pending.proofId, options.print);
  const row = await bindings[SHARD_BINDING[shard]].prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(pending.proofId).first<{ sealed_at: string }>();
  return { ...pending, sealedAt: row!.sealed_at, signals: await signalsOf(shard, pending.proofId) };
}

/** The signals `proof.sealed` carried for the proof (the organization's own view of them). */
async function signalsOf(shard: Shard, proofId: string) {
  const event = await bindings[SHARD_BINDING[shard]]
    .prepare("SELECT data FROM events WHERE type = 'proof.sealed' AND json_extract(data, '$.proof_id') = ?")
    .bind(proofId)
    .first<{ data: string }>();
  return (JSON.parse(event!.data) as { signals: { code: string; proof_id?: string; distance?: number }[] }).signals;
}

const sealedBeforeOf = (signals: { code: string; proof_id?: string }[]) =>
  signals.filter((signal) => signal.code === "sealed_before").map((signal) => signal.proof_id);

async function plant(organizationId: string, sha256: string, sealedAt: string, proofId: string): Promise<void> {
  await env.FILES.put(`${sealedBytesPrefix(organizationId, "test", sha256)}${sealedAt}/${proofId}`, new Uint8Array());
}

describe("the same bytes sealed in two shards of one organization (forger session 9, W7)", () => {
  it("the same bytes sealed at home, then again in the write shard, name the home proof", async () => {
    const org = await organizationOn("00");
    const photo = await randomJpeg();
    const first = await sealedCapture(org.testKey, photo);
    expect(first.shard).toBe("00");
    await addWriteShard(org.id, "01");
    const again = await sealedCapture((await freshKey(org.id)).key, photo);
    expect(again.shard).toBe("01");
    expect(sealedBeforeOf(await signalsOf("01", again.proofId))).toEqual([first.proofId]);
  });

  it("the same bytes sealed in the write shard, then home (an after written to its before's shard), name the write shard's proof", async () => {
    const org = await organizationOn("00");
    await addWriteShard(org.id, "01");
    const first = await sealedIn("01", org.id);
    const again = await sealedIn("00", org.id, { sha256: first.sha256 });
    expect(sealedBeforeOf(again.signals)).toEqual([first.proofId]);
  });

  it("from one write shard to the next, the earliest sealing is named wherever it is", async () => {
    const org = await organizationOn("00");
    await addWriteShard(org.id, "01");
    const first = await sealedIn("01", org.id);
    await addWriteShard(org.id, "02");
    const second = await sealedIn("02", org.id, { sha256: first.sha256 });
    expect(sealedBeforeOf(second.signals)).toEqual([first.proofId]);
    const third = await sealedIn("00", org.id, { sha256: first.sha256 });
    expect(sealedBeforeOf(third.signals)).toEqual([first.proofId]);
  });

  it("a proof sealed before the record (its file rows, home) is named for the same bytes sealed in the write shard", async () => {
    const org = await organizationOn("00");
    const legacy = await sealedIn("00", org.id);
    await asSealedBeforeTheRecord(legacy.proofId);
    // Sealed before the sealed-before index: only its rows say it holds the bytes.
    for (const object of (await env.FILES.list({ prefix: sealedBytesPrefix(org.id, "test", legacy.sha256) })).objects) await env.FILES.delete(object.key);
    await addWriteShard(org.id, "01");
    const again = await sealedIn("01", org.id, { sha256: legacy.sha256 });
    expect(sealedBeforeOf(again.signals)).toEqual([legacy.proofId]);
  });

  it("a photo sealed in the write shard is compared with the prints the D1 table still holds home", async () => {
    const org = await organizationOn("00");
    const legacy = await sealedIn("00", org.id);
    // Written by the batch that sealed it before the similarity index (migration 0020), not yet moved by the backfill.
    await env.DB.prepare(
      "INSERT INTO file_fingerprints (file_id, organization_id, mode, proof_id, step_id, sealed_at, phash, dhash, band0, band1, band2, band3, variant) VALUES (?, ?, 'test', ?, 'photos', ?, ?, ?, ?, ?, ?, ?, 0)",
    )
      .bind(legacy.fileId, org.id, legacy.proofId, legacy.sealedAt, PHOTO.phash, PHOTO.dhash, ...phashBands(PHOTO.phash))
      .run();
    await addWriteShard(org.id, "01");
    const again = await sealedIn("01", org.id, { print: NEAR });
    expect(again.signals).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: legacy.proofId, distance: 4 })]);
  });
});

describe("what the organization's shards never name", () => {
  it("a proof of another organization on the write shard holding the same bytes is never named, even by an entry planted for it", async () => {
    const org = await organizationOn("00");
    await addWriteShard(org.id, "01");
    const neighbour = await organizationOn("01");
    const theirs = await sealedIn("01", neighbour.id);
    const inWriteShard = await sealedIn("01", org.id, {
      sha256: theirs.sha256,
      beforeSealing: (sha256) => plant(org.id, sha256, theirs.sealedAt, theirs.proofId),
    });
    const home = await sealedIn("00", org.id, {
      sha256: theirs.sha256,
      beforeSealing: (sha256) => plant(org.id, sha256, theirs.sealedAt, theirs.proofId),
    });
    expect(sealedBeforeOf(inWriteShard.signals)).toEqual([]);
    // The organization's own proof in the write shard is the one named, never the neighbour's sealed there before it.
    expect(sealedBeforeOf(home.signals)).toEqual([inWriteShard.proofId]);
  });

  it("an entry naming a shard that is not the organization's is asked nowhere, even one this deployment lacks", async () => {
    const org = await organizationOn("00");
    const stranger = await organizationOn("02");
    const theirs = await sealedIn("02", stranger.id);
    const later = await sealedIn("00", org.id, {
      sha256: theirs.sha256,
      beforeSealing: async (sha256) => {
        await plant(org.id, sha256, theirs.sealedAt, theirs.proofId);
        await plant(org.id, sha256, "2000-01-01T00:00:00.000Z", `prf_zz${"0".repeat(20)}`);
      },
    });
    expect(later.signals).toEqual([]);
  });
});

describe("an organization's shards read once a sealing", () => {
  it("a proof of a write shard re-using bytes and a photo of two other shards reads the write-shard list once", async () => {
    const org = await organizationOn("00");
    await addWriteShard(org.id, "01");
    const first = await sealedIn("01", org.id, { print: PHOTO });
    await addWriteShard(org.id, "02");
    const { result: again, statements: prepared } = await statementsPreparedOn("DB", () => sealedIn("02", org.id, { sha256: first.sha256, print: NEAR }));
    expect(again.signals.map(({ code, proof_id }) => [code, proof_id])).toEqual([["sealed_before", first.proofId]]);
    expect(prepared.filter((sql) => sql.includes("organization_write_shards"))).toHaveLength(1);
  });

  it("an organization in one shard seals with the D1 statements it always did", async () => {
    const org = await organizationOn("00");
    const first = await sealedIn("00", org.id, { print: PHOTO });
    const d1 = ({ trips }: { trips: { d1Statements: number; d1Batches: number } }) => [trips.d1Statements, trips.d1Batches];
    const withPrint = await pendingIn("00", org.id, first.sha256);
    const withPrintSealed = await countRoundTrips(() => seal("00", withPrint.proofId, NEAR));
    expect(sealedBeforeOf(await signalsOf("00", withPrint.proofId))).toEqual([first.proofId]);
    const withoutPrint = await pendingIn("00", org.id, first.sha256);
    const withoutPrintSealed = await countRoundTrips(() => seal("00", withoutPrint.proofId));
    expect(sealedBeforeOf(await signalsOf("00", withoutPrint.proofId))).toEqual([first.proofId]);
    const newBytes = await pendingIn("00", org.id);
    const newBytesSealed = await countRoundTrips(() => seal("00", newBytes.proofId, PHOTO));
    // [statements, batches], as measured before write shards reached sealed_before (d5afc33): the write-shard list is
    // read for the similarity look-up alone (a proof with a print), and shard 00 is the only one asked.
    expect(d1(withPrintSealed)).toEqual([6, 3]);
    expect(d1(withoutPrintSealed)).toEqual([4, 2]);
    expect(d1(newBytesSealed)).toEqual([6, 2]);
  });
});
