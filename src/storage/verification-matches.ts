import { eq, or } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";

/**
 * Files whose original or signed bytes have this SHA-256, with their proof (public verification by file).
 * Bounded: the same bytes sealed many times need not be listed to the last.
 */
export async function filesMatchingHash(db: Database, sha256: string, limit: number) {
  return db
    .select({ file: files, proof: proofs })
    .from(files)
    .innerJoin(proofs, eq(proofs.id, files.proofId))
    .where(or(eq(files.sha256, sha256), eq(files.signedSha256, sha256)))
    .limit(limit)
    .all();
}
