import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { proofReports } from "../db/schema/index.ts";
import { statement } from "./statement.ts";

export type ProofReportRow = typeof proofReports.$inferSelect;
export type ReportKind = ProofReportRow["kind"];

/** The report of that kind made for the proof (a pair's is kept with its after); null while none is. */
export async function findProofReport(db: Database, proofId: string, kind: ReportKind): Promise<ProofReportRow | null> {
  return (
    (await db
      .select()
      .from(proofReports)
      .where(and(eq(proofReports.proofId, proofId), eq(proofReports.kind, kind)))
      .get()) ?? null
  );
}

/**
 * Records a report once made and stored: the first run to record it wins (the primary key), so that a proof
 * never has two. Returns whether this run's report is the one recorded; a run that lost deletes its object.
 */
export async function recordProofReport(db: Database, report: ProofReportRow): Promise<boolean> {
  const inserted = await db.insert(proofReports).values(report).onConflictDoNothing().run();
  return (inserted.meta.changes ?? 0) > 0;
}

/** A report a sealed proof should have and has not: its own, or for an after, its pair's. */
export interface MissingReport {
  proofId: string;
  kind: ReportKind;
}

/**
 * Up to `limit` reports missing for proofs sealed at or before `sealedBefore` (time for the queue's own
 * message to have made them), the longest missing first: every sealed proof's own, and every sealed after's
 * pair report. Not while the re-hash's finding of a record.json the report needs is open (the proof's, and a
 * pair's before's: docs/adr/0068): no report is made of a proof whose files cannot be listed, and the sweep would
 * try it every run; the finding goes when the re-hash reads the record again, and the report is made. Two bound values.
 */
export async function missingReports(d1: D1Database, sealedBefore: string, limit: number): Promise<MissingReport[]> {
  const rows = await statement(
    d1,
    sql`SELECT id AS proofId, kind FROM (
      SELECT p.id, 'proof' AS kind, p.sealed_at FROM proofs p WHERE p.status = 'sealed' AND p.sealed_at <= ${sealedBefore}
        AND NOT EXISTS (SELECT 1 FROM proof_reports r WHERE r.proof_id = p.id AND r.kind = 'proof')
        AND NOT EXISTS (SELECT 1 FROM sealed_object_checks c WHERE c.proof_id = p.id AND c.entry = 'record.json' AND c.matched = 0)
      UNION ALL
      SELECT p.id, 'pair' AS kind, p.sealed_at FROM proofs p WHERE p.status = 'sealed' AND p.compare_to IS NOT NULL AND p.sealed_at <= ${sealedBefore}
        AND NOT EXISTS (SELECT 1 FROM proof_reports r WHERE r.proof_id = p.id AND r.kind = 'pair')
        AND NOT EXISTS (SELECT 1 FROM sealed_object_checks c WHERE c.proof_id IN (p.id, p.compare_to) AND c.entry = 'record.json' AND c.matched = 0)
    ) ORDER BY sealed_at LIMIT ${sql.raw(String(limit))}`,
  ).all<MissingReport>();
  return rows.results;
}

/** The reports (at most `limit`) whose SHA-256 is this one: at most one in practice, a report's bytes name its proof. */
export async function reportsWithHash(db: Database, sha256: string, limit: number): Promise<ProofReportRow[]> {
  return db.select().from(proofReports).where(eq(proofReports.sha256, sha256)).limit(limit).all();
}

/** The reports a proof's package carries: its own, and for an after, its pair's (kept with it). */
export async function reportsKeptWith(db: Database, proofId: string): Promise<ProofReportRow[]> {
  return db.select().from(proofReports).where(eq(proofReports.proofId, proofId)).all();
}

/** The reports a proof's public answer names: its own, and its pair's, kept with it or, for a before, with its after. */
export async function reportsShownWith(db: Database, proof: { id: string; comparedBy: string | null }): Promise<ProofReportRow[]> {
  const kept = await reportsKeptWith(db, proof.id);
  const pair = kept.some((report) => report.kind === "pair") || proof.comparedBy === null ? null : await findProofReport(db, proof.comparedBy, "pair");
  return pair === null ? kept : [...kept, pair];
}
