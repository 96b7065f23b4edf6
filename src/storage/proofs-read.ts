import { and, eq, gte, inArray, isNotNull, isNull, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { itemsByShard, shardDatabase } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { files, proofs } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";
import type { FileRow, ProofRow } from "./rows.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { SealedRecordUnavailable, sealedRecordFiles, withSealedRecord } from "./objects/sealed-records.ts";
import { sealedThumbnail } from "./objects/thumbnails.ts";
import { proofsWithRecordFinding } from "./sealed-object-checks.ts";

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

/** `proofs.sealed_record` of a proof whose record holds its files whole (docs/adr/0065): no file row is left in D1. */
export const FILES_IN_RECORD = 2;

/**
 * The files of each proof, in capture order, with all their facts: for a proof sealed since docs/adr/0065 from its
 * record in R2 alone; for one sealed with a record of facts (migration 0024) from D1 completed by that record; from
 * D1 alone otherwise. Records are read in parallel, and D1 only when a proof may still have file rows. A record that
 * cannot give a proof's files is thrown (`SealedRecordUnavailable`); `observedProofFiles` answers it per proof.
 */
export async function proofFiles(db: Database, store: ObjectStore, ofProofs: ProofFilesOf[]): Promise<Map<string, FileRow[]>> {
  const observed = await observedProofFiles(db, store, ofProofs);
  for (const files of observed.values()) if (files instanceof SealedRecordUnavailable) throw files;
  return observed as Map<string, FileRow[]>;
}

type ProofFilesOf = Pick<ProofRow, "id" | "sealingRun" | "sealedRecord" | "sealedRecordSha256" | "manifestSha256">;

/**
 * The files of each proof as `proofFiles` reads them, or, for a proof whose sealed record cannot give them, what was
 * observed of that record: one proof's record gone or altered never hides the others', and is presented as found.
 */
export async function observedProofFiles(
  db: Database,
  store: ObjectStore,
  ofProofs: ProofFilesOf[],
): Promise<Map<string, FileRow[] | SealedRecordUnavailable>> {
  const byProof = new Map<string, FileRow[] | SealedRecordUnavailable>();
  const fromD1 = await fileRowsOf(
    db,
    ofProofs.filter((proof) => proof.sealedRecord !== FILES_IN_RECORD).map((proof) => proof.id),
  );
  // Anything else one proof's read throws is that proof's record unreadable, never every proof's failure (forger
  // session 8, H0: one record made the owner's whole list, the public look-up and sealing fail).
  const unavailableOr = (proofId: string, read: Promise<FileRow[]>) =>
    read.catch((error: unknown) => {
      if (error instanceof SealedRecordUnavailable) return error;
      console.error(JSON.stringify({ level: "error", alert: "sealed_record_read_failed", proof_id: proofId, error: String(error) }));
      return new SealedRecordUnavailable(proofId, "unreadable", `proof ${proofId}: its sealed record could not be read (${String(error)})`);
    });
  await Promise.all(
    ofProofs.map(async (proof) => {
      const held = fromD1.get(proof.id);
      if (proof.sealedRecord === FILES_IN_RECORD) byProof.set(proof.id, await unavailableOr(proof.id, sealedRecordFiles(store, proof)));
      else if (proof.sealedRecord === 1 && held !== undefined) byProof.set(proof.id, await unavailableOr(proof.id, withSealedRecord(store, proof, held)));
      else if (held !== undefined) byProof.set(proof.id, held);
    }),
  );
  // A record of facts no SHA-256 binds, seen missing, unreadable or altered by a re-hash: what reads there since is
  // not taken for the one sealing wrote (forger session 8, H1: deleted, then put back forged) until an operator
  // removes the finding (docs/adr/0069, docs/operations.md). No query while every record read is bound.
  const unbound = ofProofs.filter((proof) => proof.sealedRecord === 1 && proof.sealedRecordSha256 === null).map((proof) => proof.id);
  for (const id of await proofsWithRecordFinding(db.$client, unbound))
    if (Array.isArray(byProof.get(id))) byProof.set(id, new SealedRecordUnavailable(id, "altered", `proof ${id}: its record.json has an open re-hash finding`));
  return byProof;
}

/**
 * `observedProofFiles` of a page of proofs merged from an organization's shards (docs/adr/0070): each shard is
 * asked, at once, for the proofs whose id names it; a page from one shard costs what it always did.
 */
export async function observedFilesOfListedProofs(env: Env, ofProofs: ProofFilesOf[]): Promise<Map<string, FileRow[] | SealedRecordUnavailable>> {
  const byShard = itemsByShard(ofProofs, (proof) => proof.id);
  const observed = await Promise.all([...byShard].map(([shard, held]) => observedProofFiles(shardDatabase(env, shard), env, held)));
  return new Map(observed.flatMap((byProof) => [...byProof]));
}

/** The file rows D1 holds of each proof, in capture order (none for a proof sealed since docs/adr/0065). */
export async function fileRowsOf(db: Database, proofIds: string[]): Promise<Map<string, FileRow[]>> {
  const rows = proofIds.length === 0 ? [] : await db.select().from(files).where(inArray(files.proofId, proofIds)).orderBy(files.createdAt, files.id).all();
  const byProof = new Map<string, FileRow[]>();
  for (const row of rows) byProof.set(row.proofId!, [...(byProof.get(row.proofId!) ?? []), row]);
  return byProof;
}

/**
 * Per step, how many files a proof holds (for the "after" rule: at least as many shots as the before), from
 * wherever its files are.
 */
export async function shotsPerStep(db: Database, store: ObjectStore, proofId: string): Promise<Record<string, number>> {
  const proof = await findProofById(db, proofId);
  const counts: Record<string, number> = {};
  const ofProof = proof === null ? [] : ((await proofFiles(db, store, [proof])).get(proof.id) ?? []);
  for (const file of ofProof) counts[file.stepId] = (counts[file.stepId] ?? 0) + 1;
  return counts;
}

/**
 * The thumbnails of a proof's files, in capture order, for an "after" to show its before's shots: each file's id,
 * step and the thumbnail the sealer made, where it is in R2 and its SHA-256 when the record keeps it (files without
 * one, videos and HEIC, are left out, and so is one a record names outside the proof's run: forger session 7, G6).
 */
export async function proofThumbnails(
  db: Database,
  store: ObjectStore,
  proofId: string,
): Promise<{ id: string; stepId: string; key: string; contentType: string; sha256?: string }[]> {
  const proof = await findProofById(db, proofId);
  const files = proof === null ? [] : ((await proofFiles(db, store, [proof])).get(proof.id) ?? []);
  return files.flatMap((file) => {
    const thumbnail = proof === null ? null : sealedThumbnail(proof, file);
    if (thumbnail === null || thumbnail === "elsewhere") return [];
    const { key, content_type: contentType, sha256 } = thumbnail;
    return [{ id: file.id, stepId: file.stepId, key, contentType, ...(sha256 === undefined ? {} : { sha256 }) }];
  });
}

export async function findProofById(db: Database, id: string): Promise<ProofRow | null> {
  return (await db.select().from(proofs).where(eq(proofs.id, id)).get()) ?? null;
}
