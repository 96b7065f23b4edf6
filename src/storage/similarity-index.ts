import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { proofs } from "../db/schema/index.ts";
import { shardOfId, type ShardCode } from "../db/shards.ts";
import { namedStub } from "../durable/named-stub.ts";
import type { Env } from "../env.ts";
import type { IndexedFile } from "../durable/similarity-index.ts";
import { bandQueries, type FingerprintCandidate, type PhotoFingerprint, type PrintLookup, type ProofScope } from "./file-fingerprints.ts";
import { askedInTheirShards, type ProofShards } from "./write-shards.ts";

/**
 * The similarity index (docs/adr/0064): the sealed files' perceptual prints, in a SQLite Durable Object per
 * organization, mode and shard its proofs are in, out of D1. The Worker's env, or a test's: the index's namespace,
 * and the shards whose D1 says which of the proofs found are sealed.
 */
export type SimilarityIndexes = Env;

type IndexScope = Pick<ProofScope, "organizationId" | "mode">;

/**
 * The index of an organization's and mode's proofs in one of its shards: `<organization id>:<mode>` for its home
 * shard (the one its id names, as before write shards), `<organization id>:<mode>:<NN>` for its write shard NN
 * (docs/adr/0070): one object holds 10 GB, about 2 million proofs, so each period of an organization has its own.
 */
export const similarityIndexName = ({ organizationId, mode }: IndexScope, shard: ShardCode): string =>
  shard === shardOfId(organizationId) ? `${organizationId}:${mode}` : `${organizationId}:${mode}:${shard}`;

const indexOf = (indexes: Pick<WorkerBindings, "SIMILARITY_INDEX">, scope: IndexScope, shard: ShardCode) =>
  namedStub(indexes.SIMILARITY_INDEX, similarityIndexName(scope, shard));

/**
 * Writes files' prints into their organization's and mode's index of `shard` (home when not given: the prints the
 * backfill moves were all sealed before write shards), replacing any the same files had there.
 */
export async function indexFiles(
  indexes: Pick<WorkerBindings, "SIMILARITY_INDEX">,
  scope: IndexScope,
  files: readonly IndexedFile[],
  shard: ShardCode = shardOfId(scope.organizationId),
): Promise<void> {
  if (files.length > 0) await indexOf(indexes, scope, shard).store(files);
}

/**
 * Writes the proof's fingerprinted files into the index, each with its whole picture's print then its crops' (a
 * video's middle frame then its other frames), before the batch that seals the proof: they count in look-ups
 * once that batch has said sealed ({@link indexedCandidates}).
 */
export async function indexSealedFiles(
  indexes: Pick<WorkerBindings, "SIMILARITY_INDEX">,
  proof: ProofScope,
  photos: readonly PhotoFingerprint[],
): Promise<void> {
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
    shardOfId(proof.id),
  );
}

/**
 * The prints of the organization's and mode's indexes that may be close to one of `lookups`, by the statements the D1
 * table was looked up with ({@link bandQueries}), kept only where their proof is sealed: a print written by a run whose
 * batch never committed, or not yet, is never a candidate. The seal's time is read with it, from D1, in one statement
 * a shard. Every shard of the organization has its index (docs/adr/0070), asked all at once, newest first: a look-up
 * finding nothing, the usual one, asks each anyway, and the earliest sealing found is the one named, as with one.
 * Which shards it has is read in its home shard (`shards.list()`, shared with the rest of the proof's sealing): one
 * indexed statement a look-up, for every organization.
 */
export async function indexedCandidates(
  indexes: SimilarityIndexes,
  shards: ProofShards,
  proof: ProofScope,
  lookups: readonly PrintLookup[],
): Promise<FingerprintCandidate[]> {
  if (lookups.length === 0) return [];
  const queries = bandQueries(lookups);
  const found = await Promise.all([...(await shards.list())].reverse().map((shard) => indexOf(indexes, proof, shard).candidates(proof.id, queries)));
  const prints = found.flat();
  if (prints.length === 0) return [];
  const sealed = await askedInTheirShards(shards, [...new Set(prints.map(({ proofId }) => proofId))], (id) => id, sealedTimes);
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
