import { and, asc, eq, inArray, ne, or } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";

/** D1 binds at most 100 parameters per statement: each chunk binds its hashes twice plus three. */
const HASHES_PER_QUERY = 40;

/**
 * For each hash, the earliest other sealed proof of the same organization and mode holding those bytes,
 * as an original or as a signed copy (a sealed file uploaded again). Keyed by hash, lowercase.
 */
export async function earlierProofsByHash(
  db: Database,
  proof: { id: string; organizationId: string; mode: "test" | "live" },
  hashes: string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const wanted = [...new Set(hashes.map((hash) => hash.toLowerCase()))];
  for (let start = 0; start < wanted.length; start += HASHES_PER_QUERY) {
    const chunk = wanted.slice(start, start + HASHES_PER_QUERY);
    const rows = await db
      .select({ sha256: files.sha256, signedSha256: files.signedSha256, proofId: proofs.id })
      .from(files)
      .innerJoin(proofs, eq(files.proofId, proofs.id))
      .where(
        and(
          or(inArray(files.sha256, chunk), inArray(files.signedSha256, chunk)),
          eq(proofs.organizationId, proof.organizationId),
          eq(proofs.mode, proof.mode),
          eq(proofs.status, "sealed"),
          ne(proofs.id, proof.id),
        ),
      )
      .orderBy(asc(proofs.sealedAt), asc(proofs.id))
      .all();
    for (const row of rows) {
      for (const hash of [row.sha256, row.signedSha256]) {
        if (hash !== null && chunk.includes(hash) && !found.has(hash)) found.set(hash, row.proofId);
      }
    }
  }
  return found;
}
