import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { proofs } from "../db/schema/proofs.ts";
import type { ProofRow } from "./rows.ts";
import { chunks, D1_MAX_BOUND_PARAMETERS, rowsPerInsert } from "../lib/batches.ts";
import { statement, valueList } from "./statement.ts";

/**
 * The re-hash of sealed stored objects (docs/adr/0066, superseding the storage of 0037): one cursor row per shard
 * (`rehash_cursor`, migration 0026) walks the sealed proofs in the order their sealing committed (`proofs.rehash_seq`),
 * and `sealed_object_checks` keeps a row only for an object whose latest re-hash did not match (altered or missing)
 * or, for proofs sealed before migration 0026, the expected hash of an artifact that only that row holds. Raw
 * statements, set-based, within D1's 100 bound parameters.
 */

/** An object a sealed proof publishes, as the sweep re-hashes it. */
export interface SealedObject {
  objectKey: string;
  proofId: string;
  /** Its name in the package: `files/<id>.<ext>`, `manifest.json`, `proof.tsr`, `manifest.p7s`, `chain.pem` (or `artifact-hashes.json`). */
  entry: string;
  fileId: string | null;
  /** null: a proof sealed before its artifacts' hashes were recorded at sealing: its first re-hash records what it finds. */
  expectedSha256: string | null;
  size: number | null;
}

/** A row of `sealed_object_checks`: what a re-hash found for one object of a proof. */
export interface ObjectCheck extends SealedObject {
  lastCheckedAt: string | null;
  /** null: missing at the last re-hash. */
  foundSha256: string | null;
  /** false: altered or missing; true or null: a row that only holds an artifact's expected hash (before migration 0026). */
  matched: boolean | null;
  mismatchSince: string | null;
}

/** The outcome of re-hashing one object. */
export interface RehashOutcome {
  object: SealedObject;
  /** null: the object is not in storage. */
  foundSha256: string | null;
  size: number | null;
  /**
   * Where the object's expected hash is kept: `proof` (what the proof records: no row once it matches), `row` (an
   * artifact sealed before migration 0026: its row is kept, written when it is missing, has no hash yet or was a
   * mismatch), `settled row` (that row, already matched with its hash: nothing to write when it matches).
   */
  expectedIn: "proof" | "row" | "settled row";
  /**
   * false: a JSON object of the proof (its sealed record, its artifact hashes) that could not be read as what sealing
   * wrote; a finding whatever its bytes, since nothing else holds its hash.
   */
  readable?: false;
}

/** The shard's cursor (migration 0026). */
export interface RehashCursor {
  /** null: no round started yet. */
  roundStartedAt: string | null;
  /** The last proof (`rehash_seq`) whose objects this round re-hashed all. */
  position: number;
  /** Objects of the next proof already re-hashed this round (a proof larger than a run's budget takes several runs). */
  objectOffset: number;
  previousRoundStartedAt: string | null;
  previousRoundCompletedAt: string | null;
  /** The last proof the previous round re-hashed (0: no round completed). */
  previousRoundEnd: number;
  /** The first proof sealed with its run's artifact-hashes.json. */
  artifactHashesFrom: number;
}

/** What the re-hash sweep found for one sealed proof, as the public verdict reads it. */
export interface ProofRehashes {
  /**
   * When its stored objects were last re-hashed: the start of the round that last re-hashed them, or its sealing when
   * later (the re-hash itself was at or after it, never before); null when none has yet.
   */
  checkedAt: string | null;
  /**
   * The rows of its objects the verdict reads: those whose latest re-hash found another hash or no object, and those
   * found restored by a round that has not re-hashed all the proof's objects yet (their row says when; it goes once
   * the round has re-hashed them all).
   */
  findings: ObjectCheck[];
}

interface CheckRow {
  object_key: string;
  proof_id: string;
  entry: string;
  file_id: string | null;
  expected_sha256: string | null;
  size: number | null;
  last_checked_at: string | null;
  found_sha256: string | null;
  matched: number | null;
  mismatch_since: string | null;
}

interface CursorRow {
  round_started_at: string | null;
  position: number;
  object_offset: number;
  previous_round_started_at: string | null;
  previous_round_completed_at: string | null;
  previous_round_end: number;
  artifact_hashes_from: number;
}

const COLUMN_NAMES = ["object_key", "proof_id", "entry", "file_id", "expected_sha256", "size", "last_checked_at", "found_sha256", "matched", "mismatch_since"];
const COLUMNS = sql.raw(COLUMN_NAMES.join(", "));
/** The same columns of the table aliased `c`. */
const CHECK_COLUMNS_OF_C = sql.raw(COLUMN_NAMES.map((name) => `c.${name}`).join(", "));
const CURSOR_COLUMNS = sql.raw(
  "round_started_at, position, object_offset, previous_round_started_at, previous_round_completed_at, previous_round_end, artifact_hashes_from",
);

const fromRow = (row: CheckRow): ObjectCheck => ({
  objectKey: row.object_key,
  proofId: row.proof_id,
  entry: row.entry,
  fileId: row.file_id,
  expectedSha256: row.expected_sha256,
  size: row.size,
  lastCheckedAt: row.last_checked_at,
  foundSha256: row.found_sha256,
  matched: row.matched === null ? null : row.matched === 1,
  mismatchSince: row.mismatch_since,
});

const fromCursorRow = (row: CursorRow): RehashCursor => ({
  roundStartedAt: row.round_started_at,
  position: row.position,
  objectOffset: row.object_offset,
  previousRoundStartedAt: row.previous_round_started_at,
  previousRoundCompletedAt: row.previous_round_completed_at,
  previousRoundEnd: row.previous_round_end,
  artifactHashesFrom: row.artifact_hashes_from,
});

/**
 * When a sealed proof's objects were last re-hashed, from the cursor and the proof's place alone: `rehash_seq` follows
 * the order sealing committed, and a round walks them in that order, so a proof at or before the position was
 * re-hashed in this round (at or after its start), one after it in the previous round if that round reached it (at or
 * after that round's start), and otherwise (sealed after the previous round passed its place) never: null. A proof
 * sealed after the round started was re-hashed after its sealing: the later of the two is the time given, never one
 * before the re-hash. null `seq`: not sealed.
 */
export function lastRehashedAt(cursor: RehashCursor, proof: { seq: number | null; sealedAt: string | null }): string | null {
  const { seq, sealedAt } = proof;
  if (seq === null) return null;
  const roundStart =
    cursor.roundStartedAt !== null && seq <= cursor.position ? cursor.roundStartedAt : seq <= cursor.previousRoundEnd ? cursor.previousRoundStartedAt : null;
  if (roundStart === null) return null;
  return sealedAt !== null && sealedAt > roundStart ? sealedAt : roundStart;
}

/** The shard's cursor; its round starts at `now` when none has. */
export async function rehashCursor(d1: D1Database, now: string): Promise<RehashCursor> {
  const [, read] = await d1.batch([
    statement(d1, sql`UPDATE rehash_cursor SET round_started_at = ${now} WHERE id = 1 AND round_started_at IS NULL`),
    statement(d1, sql`SELECT ${CURSOR_COLUMNS} FROM rehash_cursor WHERE id = 1`),
  ]);
  return fromCursorRow((read!.results as CursorRow[])[0]!);
}

/** A sealed proof as the sweep lists it. */
export type ProofToRehash = Pick<ProofRow, "id" | "sealingRun" | "sealedRecord" | "sealedRecordSha256" | "manifestSha256" | "sealCertificateSha256"> & {
  seq: number;
};

/** Up to `limit` sealed proofs after `position`, in the order sealing committed them (the index `proofs_rehash_seq`). */
export async function sealedProofsAfter(db: Database, position: number, limit: number): Promise<ProofToRehash[]> {
  return db
    .select({
      id: proofs.id,
      seq: sql<number>`rehash_seq`,
      sealingRun: proofs.sealingRun,
      sealedRecord: proofs.sealedRecord,
      sealedRecordSha256: proofs.sealedRecordSha256,
      manifestSha256: proofs.manifestSha256,
      sealCertificateSha256: proofs.sealCertificateSha256,
    })
    .from(proofs)
    .where(sql`rehash_seq > ${position}`)
    .orderBy(sql`rehash_seq`)
    .limit(limit);
}

/** The rows of these proofs' objects (mismatches, and the expected hashes of artifacts sealed before migration 0026). */
export async function objectChecksOf(d1: D1Database, proofIds: readonly string[]): Promise<ObjectCheck[]> {
  const found = await Promise.all(
    chunks(proofIds, D1_MAX_BOUND_PARAMETERS).map((ids) =>
      statement(d1, sql`SELECT ${COLUMNS} FROM sealed_object_checks WHERE proof_id IN (${valueList(ids)})`).all<CheckRow>(),
    ),
  );
  return found.flatMap((rows) => rows.results.map(fromRow));
}

const matches = (outcome: RehashOutcome) =>
  outcome.readable !== false &&
  outcome.foundSha256 !== null &&
  (outcome.object.expectedSha256 === null || outcome.object.expectedSha256 === outcome.foundSha256);

/**
 * Records a run's re-hashes and moves the cursor, in one atomic batch, and returns the mismatches. A mismatch (another
 * hash, or no object) gets or keeps its row, dated from its first detection. An object that matches leaves no row:
 * `cleared` (objects of proofs this run finished re-hashing, and their earlier restored rows) are deleted; `restored`
 * (objects of a proof the round has not finished) keep their mismatch row, marked matched with when, until it has. An
 * artifact whose row is the only holder of its expected hash (sealed before migration 0026) keeps it, matched (the
 * first re-hash of one sealed before its hash was recorded takes the hash it finds, as before). A run that finds the
 * cursor moved by another leaves it (both recorded the same findings).
 */
export async function recordRehashRun(
  d1: D1Database,
  input: {
    cursor: RehashCursor;
    position: number;
    objectOffset: number;
    outcomes: readonly RehashOutcome[];
    cleared: readonly string[];
    restored: readonly string[];
    checkedAt: string;
  },
): Promise<RehashOutcome[]> {
  const { cursor, outcomes, checkedAt } = input;
  const mismatches = outcomes.filter((outcome) => !matches(outcome));
  const kept = outcomes.filter((outcome) => matches(outcome) && outcome.expectedIn === "row");
  await d1.batch([
    // Most objects match and have no row: one statement per round of keys deletes the rows of those restored.
    ...chunks(input.cleared, D1_MAX_BOUND_PARAMETERS).map((keys) =>
      statement(d1, sql`DELETE FROM sealed_object_checks WHERE object_key IN (${valueList(keys)})`),
    ),
    ...chunks(input.restored, D1_MAX_BOUND_PARAMETERS - 1).map((keys) =>
      statement(
        d1,
        sql`UPDATE sealed_object_checks SET last_checked_at = ${checkedAt}, found_sha256 = expected_sha256, matched = 1, mismatch_since = NULL WHERE matched = 0 AND object_key IN (${valueList(keys)})`,
      ),
    ),
    ...kept.map((outcome) =>
      statement(
        d1,
        sql`INSERT INTO sealed_object_checks (object_key, proof_id, entry, file_id, expected_sha256, size, last_checked_at, found_sha256, matched) VALUES (${outcome.object.objectKey}, ${outcome.object.proofId}, ${outcome.object.entry}, NULL, ${outcome.foundSha256}, ${outcome.size}, ${checkedAt}, ${outcome.foundSha256}, 1) ON CONFLICT (object_key) DO UPDATE SET last_checked_at = excluded.last_checked_at, expected_sha256 = COALESCE(expected_sha256, excluded.expected_sha256), size = COALESCE(size, excluded.size), found_sha256 = excluded.found_sha256, matched = 1, mismatch_since = NULL`,
      ),
    ),
    // Ten rows a statement (ten values each): a proof whose every object is missing stays within the queries of a run.
    ...chunks(mismatches, rowsPerInsert(10)).map((rows) =>
      statement(
        d1,
        sql`INSERT INTO sealed_object_checks (object_key, proof_id, entry, file_id, expected_sha256, size, last_checked_at, found_sha256, matched, mismatch_since) VALUES ${sql.join(
          rows.map(
            ({ object, foundSha256 }) =>
              sql`(${object.objectKey}, ${object.proofId}, ${object.entry}, ${object.fileId}, ${object.expectedSha256}, ${object.size}, ${checkedAt}, ${foundSha256}, 0, ${checkedAt})`,
          ),
          sql`, `,
        )} ON CONFLICT (object_key) DO UPDATE SET last_checked_at = excluded.last_checked_at, found_sha256 = excluded.found_sha256, matched = 0, mismatch_since = COALESCE(mismatch_since, excluded.mismatch_since)`,
      ),
    ),
    statement(
      d1,
      sql`UPDATE rehash_cursor SET position = ${input.position}, object_offset = ${input.objectOffset} WHERE id = 1 AND round_started_at IS ${cursor.roundStartedAt} AND position = ${cursor.position} AND object_offset = ${cursor.objectOffset}`,
    ),
  ]);
  return mismatches;
}

/**
 * Ends the cursor's round (no sealed proof left after its position) and starts the next at `now` from the first
 * proof; a run that finds the round already ended by another leaves it. Returns the cursor of the new round.
 */
export async function startNextRound(d1: D1Database, cursor: RehashCursor, now: string): Promise<RehashCursor> {
  await statement(
    d1,
    sql`UPDATE rehash_cursor SET previous_round_started_at = round_started_at, previous_round_completed_at = ${now}, previous_round_end = position, round_started_at = ${now}, position = 0, object_offset = 0 WHERE id = 1 AND round_started_at IS ${cursor.roundStartedAt} AND position = ${cursor.position}`,
  ).run();
  return {
    ...cursor,
    previousRoundStartedAt: cursor.roundStartedAt,
    previousRoundCompletedAt: now,
    previousRoundEnd: cursor.position,
    roundStartedAt: now,
    position: 0,
    objectOffset: 0,
  };
}

/**
 * What the re-hash sweep found for one sealed proof, read in one batch (one snapshot): when it was last re-hashed,
 * derived from the cursor and its place, and the rows of its objects the verdict reads.
 */
export async function proofRehashes(d1: D1Database, proofId: string): Promise<ProofRehashes> {
  const [cursor, findings] = await d1.batch([
    statement(
      d1,
      sql`SELECT ${CURSOR_COLUMNS}, p.rehash_seq AS seq, p.sealed_at FROM rehash_cursor LEFT JOIN proofs p ON p.id = ${proofId} WHERE rehash_cursor.id = 1`,
    ),
    statement(
      d1,
      sql`SELECT ${COLUMNS} FROM sealed_object_checks WHERE proof_id = ${proofId} AND (matched = 0 OR (matched = 1 AND file_id IS NOT NULL)) ORDER BY entry`,
    ),
  ]);
  const row = (cursor!.results as (CursorRow & { seq: number | null; sealed_at: string | null })[])[0]!;
  return {
    checkedAt: lastRehashedAt(fromCursorRow(row), { seq: row.seq, sealedAt: row.sealed_at }),
    findings: (findings!.results as CheckRow[]).map(fromRow),
  };
}

/**
 * Those of `proofIds` with an open finding of their record.json (missing, unreadable or altered at a re-hash): a
 * record of facts no SHA-256 binds that was seen so is never taken as sealed again, whatever reads there later
 * (docs/adr/0069, forger session 8, H1), until an operator removes the finding (docs/operations.md).
 */
export async function proofsWithRecordFinding(d1: D1Database, proofIds: readonly string[]): Promise<Set<string>> {
  const found = await Promise.all(
    chunks(proofIds, D1_MAX_BOUND_PARAMETERS).map((ids) =>
      statement(
        d1,
        sql`SELECT DISTINCT proof_id FROM sealed_object_checks WHERE proof_id IN (${valueList(ids)}) AND entry = 'record.json' AND matched = 0`,
      ).all<{ proof_id: string }>(),
    ),
  );
  return new Set(found.flatMap((rows) => rows.results.map((row) => row.proof_id)));
}

/** Whether the latest re-hash of one stored object found it changed since sealing (false: matched, or not re-hashed yet). */
export async function foundAltered(d1: D1Database, objectKey: string): Promise<boolean> {
  const row = await statement(d1, sql`SELECT matched FROM sealed_object_checks WHERE object_key = ${objectKey}`).first<{ matched: number | null }>();
  return row?.matched === 0;
}

/** An object found altered or missing, with its proof's mode and organization, for the operator. */
export interface AlteredObject extends ObjectCheck {
  mode: "test" | "live";
  organizationId: string;
}

/**
 * Objects whose latest re-hash found them altered or missing, latest detected first, after the keyset
 * `after` (the previous page's last mismatch_since and object key); the partial index `sealed_object_checks_altered`.
 */
export async function alteredObjects(
  d1: D1Database,
  input: { limit: number; after: { mismatchSince: string; objectKey: string } | null },
): Promise<AlteredObject[]> {
  const after = input.after === null ? sql`` : sql`AND (c.mismatch_since, c.object_key) < (${input.after.mismatchSince}, ${input.after.objectKey})`;
  const rows = await statement(
    d1,
    sql`SELECT ${CHECK_COLUMNS_OF_C}, p.mode, p.organization_id FROM sealed_object_checks c JOIN proofs p ON p.id = c.proof_id WHERE c.matched = 0 ${after} ORDER BY c.mismatch_since DESC, c.object_key DESC LIMIT ${sql.raw(String(input.limit))}`,
  ).all<CheckRow & { mode: "test" | "live"; organization_id: string }>();
  return rows.results.map((row) => ({ ...fromRow(row), mode: row.mode, organizationId: row.organization_id }));
}
