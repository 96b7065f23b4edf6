import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { database } from "../../src/db/client.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { findProofById, proofFiles, proofThumbnails, shotsPerStep } from "../../src/storage/proofs-read.ts";
import { asSealedBeforeTheRecord, filesOfProof } from "./support/proof-files.ts";
import { storedZipBytes } from "./support/stored-zip.ts";
import { buildReportJob, reportSubject } from "../../src/reports/report-job.ts";

const context = { method: "camera", device_time: "2026-11-26T10:00:00.000Z", width: 4000, height: 3000, clock_offset_ms: 412, capture_page_version: "abc1234" };

/** A sealer answering with decoded facts, earlier Content Credentials and a signal for every file. */
function sealerWithFacts(job: SealJob) {
  const answer = sealedAnswer(job);
  answer.files = answer.files.map((file) => ({
    ...file,
    prior_c2pa: true,
    prior_credentials: { claim_generator: "Generator 1.0", digital_source_types: [], validation_state: "Valid" as const, signer: "Example" },
    decoded: { width: 320, height: 240, duration_ms: null },
    signals: [{ code: "dimensions_mismatch" as const, detail: "Reported 4000×3000, decoded 320×240." }],
  }));
  return answer;
}

async function pendingProof() {
  const org = await createOrganization();
  const { proofId, fileIds } = await insertPendingProof(org.id, "test", 2);
  await env.DB.prepare("UPDATE files SET capture_context = ? WHERE proof_id = ?").bind(JSON.stringify(context), proofId).run();
  return { org, proofId, fileIds };
}

const sealing = (proofId: string) => env.DB.prepare("SELECT sealing_run, sealed_record, status FROM proofs WHERE id = ?").bind(proofId).first<any>();
const recordKey = (proofId: string, run: string) => `proofs/${proofId}/runs/${run}/record.json`;

const fileRows = async (proofId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM files WHERE session_id = (SELECT session_id FROM proofs WHERE id = ?)")
    .bind(proofId)
    .first<{ n: number }>())!.n;

/**
 * Makes a proof sealed here look as one sealed with a record of facts only (migration 0024, before docs/adr/0065):
 * its files' rows back in D1 with those facts emptied, the record holding only them, and `sealed_record` 1.
 */
async function asSealedWithFactsOnly(proofId: string, decoded: { width: number; height: number; duration_ms: null }) {
  const run = (await sealing(proofId)).sealing_run;
  const whole = await filesOfProof(proofId);
  await asSealedBeforeTheRecord(proofId);
  await env.DB.prepare("UPDATE files SET capture_context = NULL, decoded = NULL, signals = NULL, prior_credentials = NULL, thumbnail = NULL WHERE proof_id = ?")
    .bind(proofId)
    .run();
  const facts = Object.fromEntries(
    whole.map((file) => [
      file.id,
      { captureContext: file.captureContext, decoded, signals: file.signals, priorCredentials: file.priorCredentials, thumbnail: file.thumbnail },
    ]),
  );
  await env.FILES.put(recordKey(proofId, run), JSON.stringify({ proof_id: proofId, run, files: facts }));
  await env.DB.prepare("UPDATE proofs SET sealed_record = 1 WHERE id = ?").bind(proofId).run();
}

describe("a sealed proof's files are in its record in R2, no row of them in D1 (issue 31 point 2, docs/adr/0065)", () => {
  it("writes the files whole to the run's record, deletes every file row of the session in the sealing batch, and presents them whole", async () => {
    const { org, proofId, fileIds } = await pendingProof();
    expect(await fileRows(proofId)).toBe(2);
    const captureOrder = (await filesOfProof(proofId)).map((file) => file.id);
    expect([...captureOrder].sort()).toEqual([...fileIds].sort());
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");

    const proof = await sealing(proofId);
    expect(proof.sealed_record).toBe(2);
    expect(await fileRows(proofId)).toBe(0);
    const record = await (await env.FILES.get(recordKey(proofId, proof.sealing_run)))!.json<any>();
    expect(record.file_order).toEqual(captureOrder);
    expect(record.files[fileIds[0]!]).toMatchObject({
      id: fileIds[0],
      proofId,
      stepId: "photos",
      kind: "photo",
      status: "uploaded",
      captureContext: context,
      signedSha256: "b".repeat(64),
      signedCrc32: 0xcafe0001,
      signedKey: expect.stringMatching(new RegExp(`^proofs/${proofId}/runs/${proof.sealing_run}/files/`)),
      decoded: { width: 320, height: 240, duration_ms: null },
    });

    const { status, body } = await callJson(`/v1/proofs/${proofId}`, { key: org.testKey });
    expect(status).toBe(200);
    expect(body.files.map((file: { id: string }) => file.id)).toEqual(captureOrder);
    for (const file of body.files) {
      expect(file.observed.decoded).toEqual({ width: 320, height: 240, duration_ms: null });
      expect(file.observed.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(file.observed.clock_offset_ms).toBe(412);
      expect(file.reported_by_device).toMatchObject({ method: "camera", width: 4000, height: 3000 });
      expect(file.earlier_content_credentials).toMatchObject({ claim_generator: "Generator 1.0" });
      expect(file.signals.map((signal: { code: string }) => signal.code)).toEqual(["dimensions_mismatch"]);
    }
    const listed = await callJson(`/v1/proofs?external_reference=${encodeURIComponent(body.external_reference)}`, { key: org.testKey });
    expect(listed.body.data[0].files).toEqual(body.files);
    const publicJson = await callJson(`/v1/public/proofs/${proofId}`);
    expect(publicJson.body.files.map((file: { id: string }) => file.id)).toEqual(captureOrder);
    expect(publicJson.body.files[0].observed.decoded).toEqual({ width: 320, height: 240, duration_ms: null });
    expect((await call(`/p/${proofId}`)).status).toBe(200);
    // The package and the report's job read them too (the stand-in sealer uploads no signed copy: put here).
    for (const file of await filesOfProof(proofId)) await env.FILES.put(file.signedKey!, "signed bytes");
    const zip = await call(`/v1/public/proofs/${proofId}/package`);
    expect(zip.status).toBe(200);
    const entries = [...storedZipBytes(new Uint8Array(await zip.arrayBuffer())).keys()];
    expect(entries.filter((name) => name.startsWith("files/"))).toHaveLength(2);
    const db = database(env.DB);
    const job = await buildReportJob(
      env,
      db,
      (await reportSubject(db, env, proofId, "proof"))!,
      async () => ({ url: "https://pictures.example/signed" }),
      new Date(Date.now() + 60_000),
    );
    expect(job.proofs[0]!.files).toHaveLength(2);
  });

  it("is crash-safe: a Worker dying after the record but before the sealing batch leaves the proof pending with its rows, and the next run seals it with its own record", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    const crashing = { ...deps, db: Object.assign(Object.create(deps.db), { batch: () => Promise.reject(new Error("the Worker died")) }) };
    await expect(sealProof(crashing, proofId)).rejects.toThrow("the Worker died");
    expect((await sealing(proofId)).status).toBe("pending");
    expect(await fileRows(proofId)).toBe(2);
    const written = await env.FILES.list({ prefix: `proofs/${proofId}/runs/` });
    const firstRecord = written.objects.find((object) => object.key.endsWith("/record.json"))!.key;

    expect(await sealProof(deps, proofId)).toBe("sealed");
    const proof = await sealing(proofId);
    expect(recordKey(proofId, proof.sealing_run)).not.toBe(firstRecord);
    expect(await env.FILES.head(recordKey(proofId, proof.sealing_run))).not.toBeNull();
    expect(await fileRows(proofId)).toBe(0);
    expect(await filesOfProof(proofId)).toHaveLength(2);
  });

  it("deletes no row when another run sealed the proof first: its batch takes effect only while the proof is pending", async () => {
    const { proofId } = await pendingProof();
    const stray = await pendingProof();
    let raced = false;
    const { deps } = dependencies(async (job) => {
      if (!raced) {
        // While this run waits for the sealer, another seals the proof; rows of the session then seen must stay.
        raced = true;
        expect(await sealProof(deps, proofId)).toBe("sealed");
        await env.DB.prepare("UPDATE files SET session_id = (SELECT session_id FROM proofs WHERE id = ?) WHERE proof_id = ?")
          .bind(proofId, stray.proofId)
          .run();
      }
      return sealerWithFacts(job);
    });
    expect(await sealProof(deps, proofId)).toBe("already_done");
    expect(await fileRows(proofId)).toBe(2);
  });

  it("keeps the thumbnails the sealer made in the record too, where an after's capture page finds its before's shots", async () => {
    const { proofId, fileIds } = await pendingProof();
    const { deps } = dependencies(async (job) => {
      const answer = sealerWithFacts(job);
      answer.files = answer.files.map((file) => ({
        ...file,
        thumbnail: file.id === fileIds[0] ? { content_type: "image/webp" as const, width: 480, height: 360, size: 16, sha256: "c".repeat(64) } : null,
      }));
      return answer;
    });
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const run = (await sealing(proofId)).sealing_run;
    expect(await proofThumbnails(database(env.DB), env, proofId)).toEqual([
      {
        id: fileIds[0],
        stepId: "photos",
        key: `proofs/${proofId}/runs/${run}/thumbnails/${fileIds[0]}.webp`,
        contentType: "image/webp",
        sha256: "c".repeat(64),
      },
    ]);
    expect(await shotsPerStep(database(env.DB), env, proofId)).toEqual({ photos: 2 });
  });

  it("refuses to present a sealed proof whose record is gone rather than show it without its files", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    await env.FILES.delete(recordKey(proofId, (await sealing(proofId)).sealing_run));
    const db = database(env.DB);
    await expect(proofFiles(db, env, [(await findProofById(db, proofId))!])).rejects.toThrow("sealed record is missing");
  });

  it("refuses to present a sealed proof whose record lacks one of its files rather than leave that file out", async () => {
    const { proofId, fileIds } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const key = recordKey(proofId, (await sealing(proofId)).sealing_run);
    const record = await (await env.FILES.get(key))!.json<any>();
    delete record.files[fileIds[1]!];
    await env.FILES.put(key, JSON.stringify(record));
    // As a proof sealed before migration 0028, whose record's hash D1 does not hold (else that check refuses it first).
    await env.DB.prepare("UPDATE proofs SET sealed_record_sha256 = NULL WHERE id = ?").bind(proofId).run();
    const db = database(env.DB);
    await expect(proofFiles(db, env, [(await findProofById(db, proofId))!])).rejects.toThrow(`file ${fileIds[1]} is missing from its sealed record`);
  });

  it("binds the record to the proof: D1 holds its SHA-256, and a record edited in storage (a capture time moved) is refused, never presented (forger session 5, F1)", async () => {
    const { proofId, fileIds } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const key = recordKey(proofId, (await sealing(proofId)).sealing_run);
    const stored = new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer());
    const column = await env.DB.prepare("SELECT sealed_record_sha256 AS sha256 FROM proofs WHERE id = ?").bind(proofId).first<{ sha256: string }>();
    expect(column?.sha256).toBe(await sha256Hex(stored));
    const db = database(env.DB);
    expect((await proofFiles(db, env, [(await findProofById(db, proofId))!])).get(proofId)).toHaveLength(2);
    const record = JSON.parse(new TextDecoder().decode(stored));
    record.files[fileIds[0]!].capturedAt = "2020-01-01T00:00:00.000Z";
    await env.FILES.put(key, JSON.stringify(record));
    await expect(proofFiles(db, env, [(await findProofById(db, proofId))!])).rejects.toThrow("not the one sealing wrote");
    expect(JSON.stringify((await callJson(`/v1/public/proofs/${proofId}`)).body)).not.toContain("2020-01-01");
  });

  it("reads a proof sealed with a record of facts only (migration 0024) from its rows completed by that record", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    await asSealedWithFactsOnly(proofId, { width: 7, height: 8, duration_ms: null });
    const files = await filesOfProof(proofId);
    expect(files.map((file) => [file.decoded, file.captureContext, file.signedSha256])).toEqual([
      [{ width: 7, height: 8, duration_ms: null }, context, "b".repeat(64)],
      [{ width: 7, height: 8, duration_ms: null }, context, "b".repeat(64)],
    ]);
  });

  it("reads a proof sealed before the record existed from D1 alone", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    await asSealedBeforeTheRecord(proofId);
    await env.FILES.delete(recordKey(proofId, (await sealing(proofId)).sealing_run));
    await env.DB.prepare("UPDATE files SET decoded = ? WHERE proof_id = ?")
      .bind(JSON.stringify({ width: 1, height: 2, duration_ms: null }), proofId)
      .run();
    const files = await filesOfProof(proofId);
    expect(files.map((file) => file.decoded)).toEqual([
      { width: 1, height: 2, duration_ms: null },
      { width: 1, height: 2, duration_ms: null },
    ]);
  });

  it("finds the same bytes sealed before, in a proof that left no row (the sealed-before index) and in one sealed before the record (its rows)", async () => {
    const org = await createOrganization();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    const legacy = await insertPendingProof(org.id, "test", 1);
    expect(await sealProof(deps, legacy.proofId)).toBe("sealed");
    await asSealedBeforeTheRecord(legacy.proofId);
    const recorded = await insertPendingProof(org.id, "test", 1);
    expect(await sealProof(deps, recorded.proofId)).toBe("sealed");
    const [legacyFile] = await filesOfProof(legacy.proofId);
    const [recordedFile] = await filesOfProof(recorded.proofId);

    const later = await insertPendingProof(org.id, "test", 2);
    await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(legacyFile!.sha256, later.fileIds[0]).run();
    await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(recordedFile!.sha256, later.fileIds[1]).run();
    expect(await sealProof(deps, later.proofId)).toBe("sealed");
    // By file id: the two files share a creation time, so their capture order is their random ids'.
    const sealedBefore = new Map(
      (await filesOfProof(later.proofId)).map((file) => [file.id, file.signals?.find((signal) => signal.code === "sealed_before")?.proof_id]),
    );
    expect(later.fileIds.map((id) => sealedBefore.get(id))).toEqual([legacy.proofId, recorded.proofId]);

    // Another organization's proof of the same bytes is never named.
    const stranger = await createOrganization();
    const theirs = await insertPendingProof(stranger.id, "test", 1);
    await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(recordedFile!.sha256, theirs.fileIds[0]).run();
    expect(await sealProof(deps, theirs.proofId)).toBe("sealed");
    expect((await filesOfProof(theirs.proofId))[0]!.signals?.map((signal) => signal.code)).toEqual(["dimensions_mismatch"]);
  });
});
