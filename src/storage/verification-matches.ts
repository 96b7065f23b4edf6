import { and, eq, or } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";

/**
 * Files whose signed bytes have this SHA-256, or whose original bytes have it in the one proof named
 * (`originalOf`), with their proof (public verification by file; docs/adr/0060: the same original bytes in
 * another proof are never listed). Bounded: the same bytes sealed many times need not be listed to the last.
 */
export async function filesMatchingHash(db: Database, sha256: string, originalOf: string | null, limit: number) {
  const original = originalOf === null ? [] : [and(eq(files.sha256, sha256), eq(files.proofId, originalOf))];
  return db
    .select({ file: files, proof: proofs })
    .from(files)
    .innerJoin(proofs, eq(proofs.id, files.proofId))
    .where(or(eq(files.signedSha256, sha256), ...original))
    .limit(limit)
    .all();
}
