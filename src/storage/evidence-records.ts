import { type SQL, sql } from "drizzle-orm";
import { chunks } from "../lib/batches.ts";
import { evidenceRecordKey } from "./objects/bucket.ts";
import { statement, valueList } from "./statement.ts";

/**
 * The evidence-record renewal's rows (migration 0015, docs/adr/0022). Raw statements, set-based: a claim
 * is one `UPDATE … RETURNING`, the outcome one statement per round of rows, within D1's 100 parameters.
 */

export type EvidenceMode = "test" | "live";

export interface DueEvidence {
  mode: EvidenceMode;
  due: number;
  /** Of the proofs still waiting for their first archive timestamp (null: none is). */
  oldestFirstDueAt: string | null;
  /** Records due for a timestamp or hash-tree renewal. */
  renewals: number;
}

/** Rows due now (their date passed, or their latest chain uses one of `otherHashes`), not claimed, per mode. */
export async function dueEvidenceByMode(d1: D1Database, now: string, otherHashes: readonly string[]): Promise<DueEvidence[]> {
  const rows = await statement(
    d1,
    sql`SELECT mode, COUNT(*) AS due, MIN(CASE WHEN record_key IS NULL THEN due_at END) AS oldest_first, SUM(record_key IS NOT NULL) AS renewals FROM evidence_records WHERE ${dueCondition(now, otherHashes)} AND (claimed_until IS NULL OR claimed_until <= ${now}) GROUP BY mode`,
  ).all<{ mode: EvidenceMode; due: number; oldest_first: string | null; renewals: number }>();
  return rows.results.map((row) => ({ mode: row.mode, due: row.due, oldestFirstDueAt: row.oldest_first, renewals: row.renewals }));
}

const dueCondition = (now: string, otherHashes: readonly string[]): SQL =>
  otherHashes.length === 0 ? sql`due_at <= ${now}` : sql`(due_at <= ${now} OR hash_algorithm IN (${valueList(otherHashes)}))`;

export interface ClaimedEvidence {
  proofId: string;
  recordKey: string | null;
  /** Where the record is written: beside the proof's artifacts, under its sealing run. */
  targetKey: string;
  /** The run whose artifacts the proof publishes (manifest.json, proof.tsr, revocation/…). */
  sealingRun: string | null;
}

/**
 * Claims up to `limit` due rows of one mode in one statement (oldest first), marking them with `claim`
 * until `until`: a concurrent sweep finds them claimed and a crashed one's rows come back after `until`.
 */
export async function claimDueEvidence(
  d1: D1Database,
  input: { mode: EvidenceMode; now: string; until: string; claim: string; limit: number; otherHashes: readonly string[] },
): Promise<ClaimedEvidence[]> {
  const claimed = await statement(
    d1,
    sql`UPDATE evidence_records SET claimed_until = ${input.until}, claim = ${input.claim} WHERE proof_id IN (SELECT proof_id FROM evidence_records WHERE mode = ${input.mode} AND ${dueCondition(input.now, input.otherHashes)} AND (claimed_until IS NULL OR claimed_until <= ${input.now}) ORDER BY due_at LIMIT ${sql.raw(String(input.limit))}) RETURNING proof_id, record_key`,
  ).all<{ proof_id: string; record_key: string | null }>();
  const runs = new Map<string, string | null>();
  for (const ids of chunks(
    claimed.results.map((row) => row.proof_id),
    90,
  )) {
    const found = await statement(d1, sql`SELECT id, sealing_run FROM proofs WHERE id IN (${valueList(ids)})`).all<{
      id: string;
      sealing_run: string | null;
    }>();
    for (const row of found.results) runs.set(row.id, row.sealing_run);
  }
  return claimed.results.map((row) => {
    const run = runs.get(row.proof_id) ?? null;
    return { proofId: row.proof_id, recordKey: row.record_key, targetKey: evidenceRecordKey(row.proof_id, run), sealingRun: run };
  });
}

/** Proofs per statement when recording renewals: two bound parameters each, plus the shared values. */
const RENEWALS_PER_STATEMENT = 40;

/**
 * Records the new archive timestamp of every renewed proof and releases its claim, only where the row is
 * still ours (`claim`): a sweep whose claim lapsed and was taken by another one does not overwrite it.
 */
export async function recordRenewals(
  d1: D1Database,
  input: { claim: string; renewed: { proofId: string; recordKey: string }[]; hash: string; renewedAt: string; authorityExpiresAt: string; dueAt: string },
): Promise<void> {
  const statements = chunks(input.renewed, RENEWALS_PER_STATEMENT).map((slice) =>
    statement(
      d1,
      sql`WITH done (proof_id, record_key) AS (VALUES ${sql.join(
        slice.map((one) => sql`(${one.proofId}, ${one.recordKey})`),
        sql`, `,
      )})
         UPDATE evidence_records SET record_key = (SELECT record_key FROM done WHERE done.proof_id = evidence_records.proof_id),
           archive_timestamps = archive_timestamps + 1, hash_algorithm = ${input.hash}, renewed_at = ${input.renewedAt}, authority_expires_at = ${input.authorityExpiresAt}, due_at = ${input.dueAt}, claimed_until = NULL, claim = NULL
         WHERE proof_id IN (SELECT proof_id FROM done) AND claim = ${input.claim}`,
    ),
  );
  if (statements.length > 0) await d1.batch(statements);
}

export interface EvidenceState {
  recordKey: string;
  archiveTimestamps: number;
  renewedAt: string;
  authorityExpiresAt: string | null;
  dueAt: string;
}

/** A proof's evidence record, once it has one (null before its first archive timestamp). */
export async function evidenceState(d1: D1Database, proofId: string): Promise<EvidenceState | null> {
  const row = await statement(
    d1,
    sql`SELECT record_key, archive_timestamps, renewed_at, authority_expires_at, due_at FROM evidence_records WHERE proof_id = ${proofId} AND record_key IS NOT NULL`,
  ).first<{ record_key: string; archive_timestamps: number; renewed_at: string; authority_expires_at: string | null; due_at: string }>();
  return (
    row && {
      recordKey: row.record_key,
      archiveTimestamps: row.archive_timestamps,
      renewedAt: row.renewed_at,
      authorityExpiresAt: row.authority_expires_at,
      dueAt: row.due_at,
    }
  );
}
