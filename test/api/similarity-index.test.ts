import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof, type SealingDependencies } from "../../src/sealing/seal-proof.ts";
import { FILES_MOVED_PER_RUN, moveFingerprintsToIndex } from "../../src/sweeps/move-fingerprints-to-index.ts";
import { workerContext } from "../../src/domain/context.ts";
import { fingerprintsToMove } from "../../src/storage/file-fingerprints.ts";
import { indexFiles } from "../../src/storage/similarity-index.ts";
import type { PerceptualFingerprint, SealJob } from "../../shared/sealer-protocol.ts";
import { phashBands } from "../../shared/perceptual-fingerprint.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { d1FingerprintRows, indexedPrints } from "./support/similarity-index.ts";

/** `NEAR` is 4 bits from `PHOTO`, one in each band: a likeness (ADR 0041). */
const PHOTO: PerceptualFingerprint = { phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" };
const NEAR: PerceptualFingerprint = { phash: "a5c2f00e3cc25a97", dhash: "0f0f3c3cf0f05a5b" };
/** Also 4 bits from `PHOTO`, 8 from `NEAR`: a proof of it names `PHOTO`'s proof, not `NEAR`'s. */
const NEAR_AGAIN: PerceptualFingerprint = { phash: "a5c1f00d3cc15a94", dhash: "0f0f3c3cf0f05a58" };
const CROPS: PerceptualFingerprint[] = ["5a3c0ff0c33ca569", "1111222233334444", "5555666677778888", "99990000aaaabbbb", "ccccddddeeeeffff"].map((phash) => ({
  phash,
  dhash: "f0f0c3c30f0fa5a5",
}));

/** Sealing dependencies that seal each file as a photo printed `print`, with its five crops. */
function printedAs(print: PerceptualFingerprint) {
  return dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => ({ ...file, fingerprint: print, crop_fingerprints: CROPS, query_crop_fingerprints: [] }));
    return answer;
  }).deps;
}

async function sealedWith(organizationId: string, print: PerceptualFingerprint) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1);
  expect(await sealProof(printedAs(print), proofId)).toBe("sealed");
  return { proofId, fileId: fileIds[0]! };
}

const signalsOf = async (proofId: string, key: string): Promise<unknown[]> => (await callJson(`/v1/proofs/${proofId}`, { key })).body.files[0].signals;

const sealedAtOf = async (proofId: string) =>
  (await env.DB.prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(proofId).first<{ sealed_at: string }>())!.sealed_at;

/**
 * `deps` whose Worker dies right after the prints are written into the index: every D1 batch after that write fails,
 * the one that would have sealed the proof first.
 */
function dyingAfterIndexWrite(deps: SealingDependencies): SealingDependencies {
  let written = false;
  const namespace = env.SIMILARITY_INDEX;
  const similarityIndexes = {
    SIMILARITY_INDEX: {
      idFromName: (name: string) => namespace.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = namespace.get(id);
        return {
          candidates: (...args: Parameters<typeof stub.candidates>) => stub.candidates(...args),
          store: async (...args: Parameters<typeof stub.store>) => {
            await stub.store(...args);
            written = true;
          },
        };
      },
    },
  } as unknown as SealingDependencies["similarityIndexes"];
  const db = new Proxy(deps.db, {
    get(target, name) {
      if (name === "batch" && written) return () => Promise.reject(new Error("the Worker died"));
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...deps, db, similarityIndexes };
}

/** Rows as migration 0020/0023's table held them, written by the batch that sealed `proofId` before the index. */
async function insertD1Fingerprints(organizationId: string, proofId: string, fileId: string, prints: PerceptualFingerprint[]) {
  const sealedAt = await sealedAtOf(proofId);
  await env.DB.batch(
    prints.map((print, variant) =>
      env.DB.prepare(
        "INSERT INTO file_fingerprints (file_id, organization_id, mode, proof_id, step_id, sealed_at, phash, dhash, band0, band1, band2, band3, variant) VALUES (?, ?, 'test', ?, 'photos', ?, ?, ?, ?, ?, ?, ?, ?)",
      ).bind(fileId, organizationId, proofId, sealedAt, print.phash, print.dhash, ...phashBands(print.phash), variant),
    ),
  );
}

describe("the similarity index, a Durable Object per organization and mode (docs/adr/0064)", () => {
  it("never counts the prints of a run whose sealing batch did not commit, and keeps them once a retry seals it", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await insertPendingProof(org.id, "test", 1);
    await expect(sealProof(dyingAfterIndexWrite(printedAs(PHOTO)), proofId)).rejects.toThrow("the Worker died");
    // The prints are written, the proof is not sealed: a later proof of a like photo is told nothing of it.
    expect(await indexedPrints(org.id, proofId)).toHaveLength(6);
    expect((await env.DB.prepare("SELECT status FROM proofs WHERE id = ?").bind(proofId).first<{ status: string }>())!.status).toBe("pending");
    const meanwhile = await sealedWith(org.id, NEAR);
    expect(await signalsOf(meanwhile.proofId, org.testKey)).toEqual([]);
    // The retry seals it, its prints written again in place (the same six, under the same file).
    expect(await sealProof(printedAs(PHOTO), proofId)).toBe("sealed");
    expect((await indexedPrints(org.id, proofId)).map(({ file_id, variant }) => [file_id, variant])).toEqual(
      [0, 1, 2, 3, 4, 5].map((variant) => [fileIds[0], variant]),
    );
    // From then on, it is an earlier photo like any other, dated as D1 says it was sealed.
    const later = await sealedWith(org.id, NEAR_AGAIN);
    expect(await signalsOf(later.proofId, org.testKey)).toEqual([
      expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: proofId, sealed_at: await sealedAtOf(proofId), distance: 4 }),
    ]);
  });

  it("never counts the prints of a proof that failed after they were written", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    await expect(sealProof(dyingAfterIndexWrite(printedAs(PHOTO)), proofId)).rejects.toThrow("the Worker died");
    await env.DB.prepare("UPDATE proofs SET status = 'failed', failed_at = ? WHERE id = ?").bind(new Date().toISOString(), proofId).run();
    const later = await sealedWith(org.id, NEAR);
    expect(await signalsOf(later.proofId, org.testKey)).toEqual([]);
  });

  it("replaces a file's prints and band entries when it is written again with others", async () => {
    const org = await createOrganization();
    const scope = { organizationId: org.id, mode: "test" as const };
    await indexFiles(env, scope, [{ fileId: "med_rewritten", proofId: "prf_rewritten", stepId: "photos", kind: "photo", prints: [PHOTO, ...CROPS] }]);
    await indexFiles(env, scope, [{ fileId: "med_rewritten", proofId: "prf_rewritten", stepId: "photos", kind: "photo", prints: [NEAR] }]);
    expect(await indexedPrints(org.id, "med_rewritten")).toEqual([
      { file_id: "med_rewritten", proof_id: "prf_rewritten", step_id: "photos", variant: 0, ...NEAR, bands: phashBands(NEAR.phash) },
    ]);
  });
});

describe("the backfill of the D1 table into the index (docs/adr/0064)", () => {
  it("moves the rows sealed before the index, a bounded number of files a run, each a look-up finds throughout", async () => {
    const org = await createOrganization();
    // Sealed before the index: the proof is sealed, its prints only in D1, as the batch that sealed it wrote them.
    const old = await insertPendingProof(org.id, "test", 1);
    expect(await sealProof(dependencies(async (job: SealJob) => sealedAnswer(job)).deps, old.proofId)).toBe("sealed");
    await insertD1Fingerprints(org.id, old.proofId, old.fileIds[0]!, [PHOTO, ...CROPS]);
    expect(await indexedPrints(org.id, old.proofId)).toEqual([]);
    const before = await sealedWith(org.id, NEAR);
    expect(await signalsOf(before.proofId, org.testKey)).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: old.proofId })]);

    const worker = workerContext(env);
    while ((await moveFingerprintsToIndex(worker, new Date())) > 0);
    expect(await d1FingerprintRows(old.proofId)).toBe(0);
    expect((await indexedPrints(org.id, old.proofId)).map(({ file_id, variant, phash }) => ({ file_id, variant, phash }))).toEqual(
      [PHOTO, ...CROPS].map(({ phash }, variant) => ({ file_id: old.fileIds[0], variant, phash })),
    );
    // Moved: found in the index.
    const after = await sealedWith(org.id, NEAR_AGAIN);
    expect(await signalsOf(after.proofId, org.testKey)).toEqual([
      expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: old.proofId, sealed_at: await sealedAtOf(old.proofId) }),
    ]);
  });

  it("moves at most its bound a run, whole files, and a run cut between the index and D1 leaves each print found once", async () => {
    const org = await createOrganization();
    const sealed = await sealedWith(org.id, { phash: "0123456789abcdef", dhash: "0123456789abcdef" });
    const worker = workerContext(env);
    while ((await moveFingerprintsToIndex(worker, new Date())) > 0);
    const files = Array.from({ length: FILES_MOVED_PER_RUN + 3 }, (_, index) => `med_backfill${String(index).padStart(4, "0")}`);
    for (const fileId of files) await insertD1Fingerprints(org.id, sealed.proofId, fileId, [PHOTO, ...CROPS]);
    // A run cut short: the index written, the D1 rows not deleted. A look-up finds each print once all the same.
    await indexFiles(
      env,
      { organizationId: org.id, mode: "test" },
      (await fingerprintsToMove(worker.db, FILES_MOVED_PER_RUN)).map(({ file }) => file),
    );
    const meanwhile = await sealedWith(org.id, NEAR);
    expect(await signalsOf(meanwhile.proofId, org.testKey)).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: sealed.proofId })]);
    expect(await moveFingerprintsToIndex(worker, new Date())).toBe(FILES_MOVED_PER_RUN);
    expect(await d1FingerprintRows(sealed.proofId)).toBe(3 * 6);
    expect(await moveFingerprintsToIndex(worker, new Date())).toBe(3);
    expect(await moveFingerprintsToIndex(worker, new Date())).toBe(0);
    const indexed = await indexedPrints(org.id, sealed.proofId);
    expect(indexed.filter(({ file_id }) => file_id.startsWith("med_backfill"))).toHaveLength(files.length * 6);
    expect(new Set(indexed.map(({ file_id, variant }) => `${file_id}/${variant}`)).size).toBe(indexed.length);
  });
});
