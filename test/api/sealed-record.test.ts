import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { database } from "../../src/db/client.ts";
import { findProofById, proofFiles, proofThumbnails } from "../../src/storage/proofs-read.ts";

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

describe("a sealed proof's full record is in R2, D1 keeps what queries need (issue 31 point 2)", () => {
  it("writes the files' facts and capture context to the run's record, leaves their columns empty, and presents them whole", async () => {
    const { org, proofId, fileIds } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");

    const proof = await sealing(proofId);
    expect(proof.sealed_record).toBe(1);
    const rows = await env.DB.prepare("SELECT capture_context, decoded, signals, prior_credentials, thumbnail, signed_sha256 FROM files WHERE proof_id = ?")
      .bind(proofId)
      .all<any>();
    for (const row of rows.results)
      expect(row).toEqual({ capture_context: null, decoded: null, signals: null, prior_credentials: null, thumbnail: null, signed_sha256: "b".repeat(64) });
    const record = await (await env.FILES.get(recordKey(proofId, proof.sealing_run)))!.json<any>();
    expect(Object.keys(record.files).sort()).toEqual([...fileIds].sort());
    expect(record.files[fileIds[0]!].captureContext).toEqual(context);

    const { status, body } = await callJson(`/v1/proofs/${proofId}`, { key: org.testKey });
    expect(status).toBe(200);
    for (const file of body.files) {
      expect(file.observed.decoded).toEqual({ width: 320, height: 240, duration_ms: null });
      expect(file.observed.clock_offset_ms).toBe(412);
      expect(file.reported_by_device).toMatchObject({ method: "camera", width: 4000, height: 3000 });
      expect(file.earlier_content_credentials).toMatchObject({ claim_generator: "Generator 1.0" });
      expect(file.signals.map((signal: { code: string }) => signal.code)).toEqual(["dimensions_mismatch"]);
    }
    const listed = await callJson(`/v1/proofs?external_reference=${encodeURIComponent(body.external_reference)}`, { key: org.testKey });
    expect(listed.body.data[0].files).toEqual(body.files);
    const publicJson = await callJson(`/v1/public/proofs/${proofId}`);
    expect(publicJson.body.files[0].observed.decoded).toEqual({ width: 320, height: 240, duration_ms: null });
  });

  it("is crash-safe: a Worker dying after the record but before the sealing batch leaves the proof pending, and the next run seals it with its own record", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    const crashing = { ...deps, db: Object.assign(Object.create(deps.db), { batch: () => Promise.reject(new Error("the Worker died")) }) };
    await expect(sealProof(crashing, proofId)).rejects.toThrow("the Worker died");
    expect((await sealing(proofId)).status).toBe("pending");
    const written = await env.FILES.list({ prefix: `proofs/${proofId}/runs/` });
    const firstRecord = written.objects.find((object) => object.key.endsWith("/record.json"))!.key;

    expect(await sealProof(deps, proofId)).toBe("sealed");
    const proof = await sealing(proofId);
    expect(recordKey(proofId, proof.sealing_run)).not.toBe(firstRecord);
    expect(await env.FILES.head(recordKey(proofId, proof.sealing_run))).not.toBeNull();
  });

  it("keeps the thumbnails the sealer made in the record too, where an after's capture page finds its before's shots", async () => {
    const { proofId, fileIds } = await pendingProof();
    const { deps } = dependencies(async (job) => {
      const answer = sealerWithFacts(job);
      answer.files = answer.files.map((file) => ({
        ...file,
        thumbnail: file.id === fileIds[0] ? { content_type: "image/webp" as const, width: 480, height: 360, size: 16 } : null,
      }));
      return answer;
    });
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const run = (await sealing(proofId)).sealing_run;
    expect(await proofThumbnails(database(env.DB), env, proofId)).toEqual([
      { id: fileIds[0], stepId: "photos", key: `proofs/${proofId}/runs/${run}/thumbnails/${fileIds[0]}.webp`, contentType: "image/webp" },
    ]);
  });

  it("refuses to present a sealed proof whose record is gone rather than show it with fewer facts or signals", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    await env.FILES.delete(recordKey(proofId, (await sealing(proofId)).sealing_run));
    const db = database(env.DB);
    await expect(proofFiles(db, env, [(await findProofById(db, proofId))!])).rejects.toThrow("sealed record is missing");
  });

  it("refuses to present a sealed proof whose record lacks one of its files rather than show that file with its emptied columns", async () => {
    const { proofId, fileIds } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const key = recordKey(proofId, (await sealing(proofId)).sealing_run);
    const record = await (await env.FILES.get(key))!.json<any>();
    delete record.files[fileIds[1]!];
    await env.FILES.put(key, JSON.stringify(record));
    const db = database(env.DB);
    await expect(proofFiles(db, env, [(await findProofById(db, proofId))!])).rejects.toThrow(`file ${fileIds[1]} is missing from its sealed record`);
  });

  it("reads a proof sealed before the record existed from D1 alone", async () => {
    const { proofId } = await pendingProof();
    const { deps } = dependencies(async (job) => sealerWithFacts(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    await env.DB.prepare("UPDATE proofs SET sealed_record = 0 WHERE id = ?").bind(proofId).run();
    await env.DB.prepare("UPDATE files SET decoded = ? WHERE proof_id = ?")
      .bind(JSON.stringify({ width: 1, height: 2, duration_ms: null }), proofId)
      .run();
    const db = database(env.DB);
    const files = (await proofFiles(db, env, [(await findProofById(db, proofId))!])).get(proofId)!;
    expect(files.map((file) => file.decoded)).toEqual([
      { width: 1, height: 2, duration_ms: null },
      { width: 1, height: 2, duration_ms: null },
    ]);
  });
});
