import { and, eq, or } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";

/**
 * Files of any proof of this database whose signed bytes have this SHA-256, with their proof: the look-up of proofs
 * sealed before the hash index (src/storage/objects/hash-index.ts), all in shard `00`. Bounded: the same bytes
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
 * The files of one proof whose signed bytes have this SHA-256, or, when `original`, whose bytes as received have
 * it (docs/adr/0060: an original is answered only in the proof named), with their proof.
 */
export async function proofFilesWithHash(db: Database, proofId: string, sha256: string, original: boolean) {
  const hash = original ? or(eq(files.signedSha256, sha256), eq(files.sha256, sha256)) : eq(files.signedSha256, sha256);
  return db
    .select({ file: files, proof: proofs })
    .from(files)
    .innerJoin(proofs, eq(proofs.id, files.proofId))
    .where(and(eq(files.proofId, proofId), hash))
    .all();
}
