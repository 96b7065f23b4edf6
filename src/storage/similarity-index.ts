import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { proofs } from "../db/schema/index.ts";
import { namedStub } from "../durable/named-stub.ts";
import type { IndexedFile } from "../durable/similarity-index.ts";
import { bandQueries, type FingerprintCandidate, type PhotoFingerprint, type PrintLookup, type ProofScope } from "./file-fingerprints.ts";

/**
 * The similarity index (docs/adr/0064): the sealed files' perceptual prints, in a SQLite Durable Object per
 * organization and mode, out of D1. The Worker's env, or a test's, is passed as the bindings.
 */
export type SimilarityIndexes = Pick<WorkerBindings, "SIMILARITY_INDEX">;

type IndexScope = Pick<ProofScope, "organizationId" | "mode">;

/** The organization's and mode's index, whatever D1 shard the organization lives in. */
const indexOf = (indexes: SimilarityIndexes, { organizationId, mode }: IndexScope) => namedStub(indexes.SIMILARITY_INDEX, `${organizationId}:${mode}`);

/** Writes files' prints into their organization's and mode's index, replacing any the same files had there. */
export async function indexFiles(indexes: SimilarityIndexes, scope: IndexScope, files: readonly IndexedFile[]): Promise<void> {
  if (files.length > 0) await indexOf(indexes, scope).store(files);
}

/**
 * Writes the proof's fingerprinted files into the index, each with its whole picture's print then its crops' (a
 * video's middle frame then its other frames), before the batch that seals the proof: they count in look-ups
 * once that batch has said sealed ({@link indexedCandidates}).
 */
export async function indexSealedFiles(indexes: SimilarityIndexes, proof: ProofScope, photos: readonly PhotoFingerprint[]): Promise<void> {
  await indexFiles(
    indexes,
    proof,
    photos.map((photo) => ({
      fileId: photo.fileId,
      proofId: proof.id,
      stepId: photo.stepId,
      kind: photo.kind,
      prints: [photo, ...photo.crops].map(({ phash, dhash }) => ({ phash, dhash })),
    })),
  );
}

/**
 * The prints of the index that may be close to one of `lookups`, by the statements the D1 table was looked up with
 * ({@link bandQueries}), kept only where their proof is sealed: a print written by a run whose batch never
 * committed, or not yet, is never a candidate. The seal's time is read with it, from D1, in one statement.
 */
export async function indexedCandidates(
  indexes: SimilarityIndexes,
  db: Database,
  proof: ProofScope,
  lookups: readonly PrintLookup[],
): Promise<FingerprintCandidate[]> {
  if (lookups.length === 0) return [];
  const prints = await indexOf(indexes, proof).candidates(proof.id, bandQueries(lookups));
  if (prints.length === 0) return [];
  const sealed = await sealedTimes(db, [...new Set(prints.map((print) => print.proofId))]);
  return prints.flatMap(({ fileId, proofId, stepId, kind, phash, dhash, variant }) => {
    const sealedAt = sealed.get(proofId);
    return sealedAt === undefined ? [] : [{ fileId, proofId, stepId, kind, sealedAt, phash, dhash, variant }];
  });
}

/** When each of `proofIds` that is sealed was, in one statement however many (their ids bound as one JSON array). */
async function sealedTimes(db: Database, proofIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await db
    .select({ id: proofs.id, sealedAt: proofs.sealedAt })
    .from(proofs)
    .where(and(inArray(proofs.id, sql`(SELECT value FROM json_each(${JSON.stringify(proofIds)}))`), eq(proofs.status, "sealed")));
  return new Map(rows.flatMap(({ id, sealedAt }) => (sealedAt === null ? [] : [[id, sealedAt] as const])));
}
