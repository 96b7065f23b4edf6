import { and, eq, gte, inArray, isNotNull, isNull, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";
import type { FileRow, ProofRow } from "./rows.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { withSealedRecord } from "./objects/sealed-records.ts";

export interface ProofFilters {
  linked?: boolean;
  external_reference?: string;
  party?: "provider" | "recipient";
  stage?: string;
  status?: "pending" | "sealed" | "failed";
  created_after?: string;
  created_before?: string;
}

/** The query behind `GET /v1/proofs`, newest first, keyset-paged (exposed so a test can EXPLAIN it). */
export function proofListQuery(db: Database, organizationId: string, mode: Mode, filters: ProofFilters, limit: number, after: Keyset | undefined) {
  const page = keysetPage({ createdAt: proofs.createdAt, id: proofs.id }, after);
  const conditions: (SQL | undefined)[] = [eq(proofs.organizationId, organizationId), eq(proofs.mode, mode), page.where];
  if (filters.linked === false) conditions.push(eq(proofs.status, "sealed"), isNull(proofs.compareTo), isNull(proofs.comparedBy));
  // Linked: the proof has its partner, as a "before" (`compared_by`) or as an "after" (`compare_to`).
  if (filters.linked === true) conditions.push(or(isNotNull(proofs.compareTo), isNotNull(proofs.comparedBy)));
  if (filters.external_reference !== undefined) conditions.push(eq(proofs.externalReference, filters.external_reference));
  if (filters.party !== undefined) conditions.push(eq(proofs.party, filters.party));
  if (filters.stage !== undefined) conditions.push(eq(proofs.stage, filters.stage));
  if (filters.status !== undefined) conditions.push(eq(proofs.status, filters.status));
  if (filters.created_after !== undefined) conditions.push(gte(proofs.createdAt, filters.created_after));
  if (filters.created_before !== undefined) conditions.push(lt(proofs.createdAt, filters.created_before));
  return db
    .select()
    .from(proofs)
    .where(and(...conditions))
    .orderBy(...page.orderBy)
    .limit(limit + 1);
}

/**
 * The files of each proof, in capture order, with all their facts: from D1, and for a proof sealed with a
 * record (migration 0024) the facts D1 no longer holds from its record in R2, read in parallel.
 */
export async function proofFiles(
  db: Database,
  store: ObjectStore,
  ofProofs: Pick<ProofRow, "id" | "sealingRun" | "sealedRecord">[],
): Promise<Map<string, FileRow[]>> {
  const byProof = new Map<string, FileRow[]>();
  if (ofProofs.length === 0) return byProof;
  const rows = await db
    .select()
    .from(files)
    .where(
      inArray(
        files.proofId,
        ofProofs.map((proof) => proof.id),
      ),
    )
    .orderBy(files.createdAt, files.id)
    .all();
  for (const row of rows) byProof.set(row.proofId!, [...(byProof.get(row.proofId!) ?? []), row]);
  await Promise.all(
    ofProofs
      .filter((proof) => proof.sealedRecord && byProof.has(proof.id))
      .map(async (proof) => byProof.set(proof.id, await withSealedRecord(store, proof, byProof.get(proof.id)!))),
  );
  return byProof;
}

/**
 * The thumbnails of a proof's files, in capture order, for an "after" to show its before's shots: each file's id,
 * step and the R2 key of the thumbnail the sealer made (files without one, videos and HEIC, are left out).
 */
export async function proofThumbnails(
  db: Database,
  store: ObjectStore,
  proofId: string,
): Promise<{ id: string; stepId: string; key: string; contentType: string }[]> {
  const proof = await findProofById(db, proofId);
  const files = proof === null ? [] : ((await proofFiles(db, store, [proof])).get(proof.id) ?? []);
  return files.flatMap((file) =>
    file.thumbnail ? [{ id: file.id, stepId: file.stepId, key: file.thumbnail.key, contentType: file.thumbnail.content_type }] : [],
  );
}

export async function findProofById(db: Database, id: string): Promise<ProofRow | null> {
  return (await db.select().from(proofs).where(eq(proofs.id, id)).get()) ?? null;
}
