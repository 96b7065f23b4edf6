import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { findProofById, observedProofFiles } from "./proofs-read.ts";
import type { ProofRow } from "./rows.ts";

/**
 * Files of any proof of this database whose signed bytes have this SHA-256, with their proof: the look-up of proofs
 * sealed before the hash index (src/storage/objects/hash-index.ts), all in shard `00`, whose file rows stay in D1. Bounded: the same bytes
 * sealed many times need not be listed to the last.
 */
export async function filesSignedWithHash(db: Database, sha256: string, limit: number) {
  return db
    .select({ file: files, proof: proofs })
    .from(files)
    .innerJoin(proofs, eq(proofs.id, files.proofId))
    .where(eq(files.signedSha256, sha256))
    .limit(limit)
    .all();
}

/**
 * The files of the proof named whose bytes have this SHA-256, as signed or as received (docs/adr/0060: an original is
 * answered only in the proof named), with their proof; none for an id this database has no proof of.
 */
export async function namedProofFilesWithHash(db: Database, store: ObjectStore, proofId: string, sha256: string) {
  const proof = await findProofById(db, proofId);
  return proof === null ? [] : proofsFilesWithHash(db, store, [proof], sha256, true);
}

/**
 * Those of `ids` that are sealed proofs of this database, in id order (the hash index's key order), at most `limit`:
 * one statement, the ids bound as one JSON array (D1 binds at most 100 values; an R2 list's 1,000 ids are about 30 KB
 * of its 2 MB string). What the index lists under a hash, confirmed by the shard its ids name.
 */
export async function sealedProofsAmong(db: Database, ids: readonly string[], limit: number): Promise<ProofRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(proofs)
    .where(and(inArray(proofs.id, sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`), eq(proofs.status, "sealed")))
    .orderBy(asc(proofs.id))
    .limit(limit)
    .all();
}

/**
 * The files of these proofs (each of this database) whose signed bytes have this SHA-256, or, when `original`, whose
 * bytes as received have it, with their proof: their files read wherever they are, in one D1 query for those that
 * still have rows and in parallel from their records (a proof sealed since docs/adr/0065 has them in R2 only).
 */
export async function proofsFilesWithHash(db: Database, store: ObjectStore, ofProofs: ProofRow[], sha256: string, original: boolean) {
  const read = await observedProofFiles(db, store, ofProofs);
  return ofProofs.flatMap((proof) => {
    const ofProof = read.get(proof.id) ?? [];
    // A record that cannot give the files cannot say the proof holds these bytes: no match is claimed (forger session 5, F3).
    if (!Array.isArray(ofProof)) return [];
    return ofProof.filter((file) => file.signedSha256 === sha256 || (original && file.sha256 === sha256)).map((file) => ({ file, proof }));
  });
}
