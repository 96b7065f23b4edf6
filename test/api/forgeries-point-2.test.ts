import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env.ts";
import { shardBinding } from "../../src/db/shards.ts";
import { workerContext } from "../../src/domain/context.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { artifactHashesKey, proofArtifactKeys, sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { storeSealedRecord } from "../../src/storage/objects/sealed-records.ts";
import { archiveEventsAndDeliveries } from "../../src/sweeps/archive-events-and-deliveries.ts";
import { deleteWebhookDeliveryBodies } from "../../src/sweeps/delete-webhook-delivery-bodies.ts";
import { proofRehashes } from "../../src/storage/sealed-object-checks.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { admin, call, callJson } from "./support/client.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { V2_FILES, V2_MANIFEST_SHA256 } from "./fixtures/sealed-proof-v2.ts";

/**
 * Forger session 5 on issue 31 point 2 (docs/adr/0064 to 0067): an insider with write access to the bucket replaces
 * the objects that now stand in for D1 rows (record.json, artifact-hashes.json) together with what they vouch for,
 * and API keys of another organization or mode reach for archived rows. Each attack here is refused; the ones that
 * are not are written in /tmp/team/forger-findings-5.md.
 */
const _bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const text = (value: string) => new TextEncoder().encode(value);
const byName = (checks: { name: string; result: string }[]) => Object.fromEntries(checks.map((check) => [check.name, check.result]));
let clock = Date.now();
const nextMinute = () => {
  clock += 60_000;
  return new Date(clock);
};

afterEach(() => vi.restoreAllMocks());

/** The genuine version-2 package stored as sealing stores it since docs/adr/0065: its files in its record only. */
async function sealedInRecord() {
  const { proofId, run, keys } = await storedGenuineV2Proof();
  // The rows became the record, as the sealing batch leaves them: sealed_record 2, no file row.
  await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
  await env.DB.batch([
    env.DB.prepare("UPDATE proofs SET sealed_record = 2 WHERE id = ?").bind(proofId),
    env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
  ]);
  return { proofId, run, keys };
}

async function editRecord(proof: { proofId: string; run: string }, edit: (record: any) => void) {
  const key = sealedRecordKey(proof.proofId, proof.run);
  const record = await (await env.FILES.get(key))!.json<any>();
  edit(record);
  await env.FILES.put(key, JSON.stringify(record));
}

/** Replaces an artifact and its entry in the run's artifact-hashes.json, as an insider covering the change would. */
async function replaceArtifact(proof: { proofId: string; run: string }, name: "manifest.json" | "proof.tsr", forged: Uint8Array) {
  const keys = proofArtifactKeys(proof.proofId, proof.run);
  await env.FILES.put(name === "manifest.json" ? keys.manifest : keys.timestampResponse, forged);
  const hashes = await (await env.FILES.get(artifactHashesKey(proof.proofId, proof.run)))!.json<any>();
  hashes[name] = { sha256: await sha256Hex(forged), size: forged.length };
  await env.FILES.put(artifactHashesKey(proof.proofId, proof.run), JSON.stringify(hashes));
}

const verdictOf = async (proofId: string) => (await callJson(`/v1/public/proofs/${proofId}`)).body.verification;
const pageOf = async (proofId: string) => (await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } })).text();

describe("record.json and artifact-hashes.json replaced in R2 with what they vouch for", () => {
  it("a genuine proof whose files are in its record alone is verified", async () => {
    const proof = await sealedInRecord();
    await rehashSealedObjects(workerContext(env), nextMinute());
    expect(await verdictOf(proof.proofId)).toMatchObject({ status: "valid", verdict: "verified" });
    // Its objects, re-hashed, match what the seal binds (the manifest's hash in D1, its files' in the manifest): no finding.
    expect((await proofRehashes(env.DB, proof.proofId)).checkedAt).not.toBeNull();
    const altered = (await admin("/admin/v1/altered-objects?limit=100", undefined, "GET")).body.data as { proof_id: string }[];
    expect(altered.filter((row) => row.proof_id === proof.proofId)).toEqual([]);
  });

  it("a signed file replaced, the record's signed hash and size made to match: the verdict says altered, never verified", async () => {
    const proof = await sealedInRecord();
    const forged = text("a photo that was never sealed");
    await env.FILES.put(proof.keys[0]!, forged);
    const forgedSha256 = await sha256Hex(forged);
    await editRecord(proof, (record) => Object.assign(record.files[V2_FILES[0].id], { signedSha256: forgedSha256, signedSize: forged.length }));
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextMinute());
    const verification = await verdictOf(proof.proofId);
    // The core compares the file's hash with the manifest's entry, which the seal and the timestamp bind.
    expect(verification).toMatchObject({ status: "invalid", verdict: "altered" });
    expect(byName(verification.checks)[`file_hash:${V2_FILES[0].id}`]).toBe("fail");
    expect(await pageOf(proof.proofId)).not.toContain('data-verdict="verified"');
  });

  it("a file added to the record, one removed, or one's signed copy unnamed: not verified (the manifest lists the files)", async () => {
    const added = await sealedInRecord();
    await editRecord(added, (record) => {
      const extra = { ...record.files[V2_FILES[0].id], id: "med_forgedextra0000000" };
      record.files[extra.id] = extra;
      record.file_order.push(extra.id);
    });
    const removed = await sealedInRecord();
    await editRecord(removed, (record) => {
      delete record.files[V2_FILES[1].id];
      record.file_order = [V2_FILES[0].id];
    });
    const unnamed = await sealedInRecord();
    await editRecord(unnamed, (record) => Object.assign(record.files[V2_FILES[0].id], { signedKey: null }));
    for (const proof of [added, removed, unnamed]) {
      const verification = await verdictOf(proof.proofId);
      expect(verification.status).toBe("invalid");
      expect(verification.verdict).not.toBe("verified");
      expect(byName(verification.checks).files_listed).toBe("fail");
    }
  });

  it("manifest.json or proof.tsr replaced together with its entry in artifact-hashes.json: not verified", async () => {
    const manifest = await sealedInRecord();
    await replaceArtifact(manifest, "manifest.json", text('{"version":2,"files":[]}'));
    const token = await sealedInRecord();
    await replaceArtifact(token, "proof.tsr", text("not a timestamp token"));
    await rehashSealedObjects(workerContext(env), nextMinute());
    for (const proof of [manifest, token]) {
      const verification = await verdictOf(proof.proofId);
      expect(verification.status).toBe("invalid");
      expect(verification.verdict).not.toBe("verified");
      expect(await pageOf(proof.proofId)).not.toContain('data-verdict="verified"');
    }
  });
});

describe("the archive of events and deliveries, reached with another mode's key or crafted filters", () => {
  const shardEnv = env as unknown as Env;
  const db = shardBinding(shardEnv, "00")!;
  const configuredOpenShards = env.OPEN_SHARDS;
  beforeAll(() => {
    env.OPEN_SHARDS = "00,01,02";
  });
  afterAll(() => {
    env.OPEN_SHARDS = configuredOpenShards;
  });
  const suffix = () => crypto.randomUUID().replaceAll("-", "").slice(0, 20);
  const fortyDaysAgo = () => new Date(Date.now() - 40 * 86_400_000).toISOString();

  it("an archived test delivery and event are found by neither the organization's live key nor another's, and no filter or cursor crafted answers 5xx", async () => {
    const org = await admin("/admin/v1/organizations", { name: "Archive forger", shard: "00" });
    const testKey = (await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "test", rate_limit_per_minute: 1_000 })).body.key as string;
    const live = await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "live", rate_limit_per_minute: 1_000 });
    const other = await admin("/admin/v1/organizations", { name: "Archive other", shard: "00" });
    const otherKey = (await admin(`/admin/v1/organizations/${other.body.id}/api-keys`, { mode: "test", rate_limit_per_minute: 1_000 })).body.key as string;
    const createdAt = fortyDaysAgo();
    const deliveryId = `whd_00${suffix()}`;
    const eventId = `evt_00${suffix()}`;
    await db.batch([
      db
        .prepare(
          `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, event, status, attempts, request_body, response_status, response_body_start, failure_reason, created_at, updated_at)
           VALUES (?, ?, 'test', 'whe_a', ?, 'proof.sealed', 'abandoned', 1, '{}', 500, 'oops', 'http_500', ?, ?)`,
        )
        .bind(deliveryId, org.body.id, eventId, createdAt, createdAt),
      db
        .prepare("INSERT INTO events (id, organization_id, mode, type, data, created_at, dispatched_at) VALUES (?, ?, 'test', 'proof.sealed', '{}', ?, ?)")
        .bind(eventId, org.body.id, createdAt, createdAt),
    ]);
    await deleteWebhookDeliveryBodies(workerContext(shardEnv, "00"), new Date());
    await archiveEventsAndDeliveries(workerContext(shardEnv, "00"), new Date());
    expect(await db.prepare("SELECT 1 FROM webhook_deliveries WHERE id = ?").bind(deliveryId).first()).toBeNull();
    expect((await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key: testKey })).status).toBe(200);

    expect(live.status).toBe(201);
    // The archived delivery's retry answers as before it moved: its bodies are gone.
    const ownRetry = await callJson(`/v1/webhook-deliveries/${deliveryId}/retry`, {
      key: testKey,
      method: "POST",
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    expect(ownRetry.status).toBe(410);
    expect(ownRetry.body.code).toBe("webhook_delivery_body_deleted");
    const strangers = [otherKey, live.body.key as string];
    for (const key of strangers) {
      const read = await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key });
      expect(read.status).toBe(404);
      const retried = await callJson(`/v1/webhook-deliveries/${deliveryId}/retry`, {
        key,
        method: "POST",
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      expect(retried.status).toBe(404);
      expect((await callJson("/v1/events?type=proof.sealed", { key })).body.data).toEqual([]);
      expect((await callJson("/v1/webhook-deliveries?status=abandoned", { key })).body.data).toEqual([]);
    }
    const crafted = [
      "/v1/events?type=%25",
      "/v1/events?type=proof.sealed%22%5D",
      `/v1/events?type=${"x".repeat(500)}`,
      "/v1/webhook-deliveries?endpoint_id=%27%20OR%201%3D1--",
      "/v1/webhook-deliveries?endpoint_id=whe_a&status=abandoned%22",
      `/v1/events?cursor=${"A".repeat(200)}`,
      "/v1/webhook-deliveries?cursor=%E0%A4%A",
      `/v1/webhook-deliveries/${deliveryId.slice(0, 10)}..%2F..%2Fby-id`,
      `/v1/webhook-deliveries/${"x".repeat(300)}`,
    ];
    for (const path of crafted) {
      const answer = await callJson(path, { key: testKey });
      expect(answer.status, path).toBeLessThan(500);
      if (answer.status === 200) expect(answer.body.data, path).toEqual([]);
      else expect(answer.body.code, path).toEqual(expect.any(String));
    }
  });
});

describe("record.json edited where the seal binds the files (forger session 5, F1; docs/adr/0065)", () => {
  let address = 0;
  const lookUp = (body: Record<string, string>) =>
    callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `198.51.100.${++address % 250}` } });

  it("an original's hash edited in the record: the look-up and the public JSON keep the sealed manifest's", async () => {
    const proof = await sealedInRecord();
    const attacker = "ab".repeat(32);
    await editRecord(proof, (record) => Object.assign(record.files[V2_FILES[0].id], { sha256: attacker, contentType: "image/png", stepId: "elsewhere" }));
    expect((await lookUp({ sha256: attacker, proof_id: proof.proofId })).body.data).toEqual([]);
    const genuine = await lookUp({ sha256: V2_FILES[0].original_sha256, proof_id: proof.proofId });
    expect(genuine.body.data).toEqual([expect.objectContaining({ proof_id: proof.proofId, file_id: V2_FILES[0].id, match: "original" })]);
    const { body } = await callJson(`/v1/public/proofs/${proof.proofId}`);
    expect(JSON.stringify(body)).not.toContain(attacker);
    expect((await filesOfProof(proof.proofId)).find((file) => file.id === V2_FILES[0].id)).toMatchObject({
      sha256: V2_FILES[0].original_sha256,
      contentType: "image/jpeg",
      stepId: "photos",
    });
  });

  it("a record of facts only (sealed_record 1) given an original's hash: the row's columns stand", async () => {
    const proof = await sealedInRecord();
    const whole = await filesOfProof(proof.proofId);
    const database = env.DB;
    for (const file of whole)
      await database
        .prepare(
          "INSERT INTO files (id, session_id, proof_id, step_id, kind, content_type, size, sha256, status, original_key, signed_key, signed_sha256, signed_size, created_at, captured_at) VALUES (?, (SELECT session_id FROM proofs WHERE id = ?), ?, ?, 'photo', ?, ?, ?, 'uploaded', ?, ?, ?, ?, ?, ?)",
        )
        .bind(
          file.id,
          proof.proofId,
          proof.proofId,
          file.stepId,
          file.contentType,
          file.size,
          file.sha256,
          file.originalKey,
          file.signedKey,
          file.signedSha256,
          file.signedSize,
          file.createdAt,
          file.capturedAt,
        )
        .run();
    const facts = Object.fromEntries(
      whole.map((file) => [file.id, { captureContext: null, decoded: null, signals: [], priorCredentials: null, thumbnail: null }]),
    );
    await env.FILES.put(sealedRecordKey(proof.proofId, proof.run), JSON.stringify({ proof_id: proof.proofId, run: proof.run, files: facts }));
    await database.prepare("UPDATE proofs SET sealed_record = 1 WHERE id = ?").bind(proof.proofId).run();
    await editRecord(proof, (record) => Object.assign(record.files[V2_FILES[0].id], { sha256: "cd".repeat(32), signedSha256: "ef".repeat(32) }));
    expect((await filesOfProof(proof.proofId)).find((file) => file.id === V2_FILES[0].id)).toMatchObject({
      sha256: V2_FILES[0].original_sha256,
      signedSha256: V2_FILES[0].signed_sha256,
    });
  });
});

describe("a sealed record or artifact hashes unreadable in R2 (forger session 5, F3; docs/adr/0066)", () => {
  /** Runs the shard's re-hash until its round ends: every proof after the cursor re-hashed once. */
  async function wholeRound() {
    for (let run = 0; run < 20; run++) if ((await rehashSealedObjects(workerContext(env), nextMinute())).roundEnded) return;
    throw new Error("the re-hash round did not end in 20 runs");
  }

  it("a corrupt or deleted record.json, or a corrupt artifact-hashes.json, is a finding of its proof, and the round goes on to a later proof altered", async () => {
    // The fixture's files have fixed ids: a proof of an earlier test left with its rows (sealed_record 1) holds them.
    await env.DB.prepare("DELETE FROM files WHERE id IN (SELECT value FROM json_each(?))")
      .bind(JSON.stringify(V2_FILES.map((file) => file.id)))
      .run();
    await wholeRound();
    const corrupt = await sealedInRecord();
    const deleted = await sealedInRecord();
    const badHashes = await sealedInRecord();
    const later = await sealedInRecord();
    await wholeRound();
    for (const proof of [corrupt, deleted, badHashes, later]) expect((await verdictOf(proof.proofId)).verdict).toBe("verified");
    await env.FILES.put(sealedRecordKey(corrupt.proofId, corrupt.run), "not json");
    await env.FILES.delete(sealedRecordKey(deleted.proofId, deleted.run));
    await env.FILES.put(artifactHashesKey(badHashes.proofId, badHashes.run), "not json");
    await env.FILES.put(later.keys[0]!, text("altered"));
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await wholeRound();
    const altered = (await admin("/admin/v1/altered-objects?limit=100", undefined, "GET")).body.data as { proof_id: string; entry: string }[];
    expect(altered.map(({ proof_id, entry }) => [proof_id, entry]).filter(([proofId]) => proofId !== later.proofId)).toEqual(
      expect.arrayContaining([
        [corrupt.proofId, "record.json"],
        [deleted.proofId, "record.json"],
        [badHashes.proofId, "artifact-hashes.json"],
      ]),
    );
    expect(altered.some(({ proof_id }) => proof_id === later.proofId)).toBe(true);
    expect((await verdictOf(later.proofId)).verdict).toBe("altered");
    // Its sealed objects are intact and checked on every request: the finding is the operator's (an object changed).
    expect((await verdictOf(badHashes.proofId)).verdict).toBe("verified");
    expect(alerts.mock.calls.map(([line]) => JSON.parse(String(line)).alert)).toContain("sealed_object_altered");
  });
});

describe("the re-hash's expected hashes from what the seal binds (forger session 5, F4 and F6; docs/adr/0066)", () => {
  const altered = async () => (await admin("/admin/v1/altered-objects?limit=100", undefined, "GET")).body.data as { proof_id: string; entry: string }[];

  it("manifest.json replaced with its artifact-hashes.json entry, a signed file with its record's hash: the manifest is found altered against D1's hash", async () => {
    const proof = await sealedInRecord();
    const forged = text('{"version":2,"files":[]}');
    await replaceArtifact(proof, "manifest.json", forged);
    const file = text("a photo that was never sealed");
    await env.FILES.put(proof.keys[0]!, file);
    const fileSha256 = await sha256Hex(file);
    await editRecord(proof, (record) => Object.assign(record.files[V2_FILES[0].id], { signedSha256: fileSha256, signedSize: file.length }));
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextMinute(), { objects: 10_000, bytes: 1 << 30, proofs: 1_000 });
    const lines = alerts.mock.calls.map(([line]) => JSON.parse(String(line))).filter((line) => line.proof_id === proof.proofId);
    // The manifest's expected hash is D1's, which the timestamp binds; the object beside it vouching for the forgery
    // is a finding too (it names another manifest than D1's).
    expect(lines).toContainEqual(
      expect.objectContaining({ alert: "sealed_object_altered", entry: "manifest.json", expected: V2_MANIFEST_SHA256, found: await sha256Hex(forged) }),
    );
    expect((await altered()).filter((row) => row.proof_id === proof.proofId).map((row) => row.entry)).toEqual(
      expect.arrayContaining(["manifest.json", "artifact-hashes.json"]),
    );
    expect((await verdictOf(proof.proofId)).verdict).not.toBe("verified");
  });

  it("manifest.json replaced by an object larger than any manifest: hashed as streamed, found altered", async () => {
    const proof = await sealedInRecord();
    const large = new Uint8Array(9 * 1024 * 1024).fill(0x20);
    await env.FILES.put(proofArtifactKeys(proof.proofId, proof.run).manifest, large);
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextMinute(), { objects: 10_000, bytes: 1 << 30, proofs: 1_000 });
    const lines = alerts.mock.calls.map(([line]) => JSON.parse(String(line))).filter((line) => line.proof_id === proof.proofId);
    expect(lines).toContainEqual(expect.objectContaining({ entry: "manifest.json", expected: V2_MANIFEST_SHA256, found: await sha256Hex(large) }));
  });

  it("record.json's file order permuted while a round is within the proof: the file not yet re-hashed is still re-hashed, in the manifest's order", async () => {
    const proof = await sealedInRecord();
    const d1 = env.DB;
    // A round that has reached the proof: its first objects re-hashed by one run, the last file not yet.
    await d1
      .prepare("UPDATE rehash_cursor SET round_started_at = ?, position = (SELECT rehash_seq - 1 FROM proofs WHERE id = ?), object_offset = 0 WHERE id = 1")
      .bind(nextMinute().toISOString(), proof.proofId)
      .run();
    // manifest.json, artifact-hashes.json, proof.tsr, chain.pem, manifest.p7s, then the first file.
    await rehashSealedObjects(workerContext(env), nextMinute(), { objects: 6, bytes: 1 << 30, proofs: 20 });
    expect(await d1.prepare("SELECT object_offset FROM rehash_cursor WHERE id = 1").first("object_offset")).toBe(6);
    // The insider replaces the file the round has not reached and moves it first in the record.
    await env.FILES.put(proof.keys[1]!, text("a photo that was never sealed"));
    await editRecord(proof, (record) => record.file_order.reverse());
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextMinute(), { objects: 6, bytes: 1 << 30, proofs: 20 });
    expect((await altered()).filter((row) => row.proof_id === proof.proofId).map((row) => row.entry)).toEqual([`files/${V2_FILES[1].id}.jpg`]);
    expect((await verdictOf(proof.proofId)).verdict).toBe("altered");
    const served = await call(`/v1/public/proofs/${proof.proofId}/files/${V2_FILES[1].id}`);
    expect(served.headers.get("Sealed-File-Status")).toBe("altered");
  });
});
