import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions, templateSnapshots } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { shardOfId } from "../db/shards.ts";
import type { TemplateSnapshot } from "../capture-templates/snapshot.ts";
import type { CaptureSessionRow } from "./rows.ts";
import { statement, valueList } from "./statement.ts";
import { boundedCache } from "../../shared/bounded-cache.ts";

/** A session with its template snapshot (stored once per content in template_snapshots). */
export type SessionRow = CaptureSessionRow & { templateSnapshot: TemplateSnapshot };
/** `templateSnapshotJson` is the snapshot's canonical JSON, stored as is: its SHA-256 is `templateSha256`. */
export type NewSessionRow = typeof captureSessions.$inferInsert & { holdsReservation: number; templateSnapshotJson: string };

/** A session to insert; without a locale of its own it takes its organization's default theme's, else English. */
export type SessionToInsert = Omit<NewSessionRow, "locale"> & { locale: string | null };

/**
 * Each column with the value it gets, side by side so that none can shift. The locale is the one asked for,
 * else the default theme's (one indexed read in the same statement).
 */
function columnValues(row: SessionToInsert): [string, unknown][] {
  return [
    ["id", row.id],
    ["organization_id", row.organizationId],
    ["mode", row.mode],
    ["status", row.status],
    ["token_hash", row.tokenHash],
    ["external_reference", row.externalReference],
    ["party", row.party],
    ["stage", row.stage ?? null],
    ["category", row.category ?? null],
    ["template_id", row.templateId ?? null],
    ["template_sha256", row.templateSha256],
    [
      "locale",
      sql`COALESCE(${row.locale}, (SELECT locale FROM capture_themes WHERE organization_id = ${row.organizationId} AND is_default = 1 AND archived_at IS NULL), 'en')`,
    ],
    ["location_reference", row.locationReference ?? null],
    ["return_url", row.returnUrl ?? null],
    ["compare_to", row.compareTo ?? null],
    ["holds_reservation", row.holdsReservation],
    ["created_at", row.createdAt],
    ["updated_at", row.updatedAt],
    ["expires_at", row.expiresAt],
  ];
}

/**
 * Where a live session's balance is decided (docs/adr/0070). `homeOnly`: the organization has no write shard,
 * so its whole balance is in this database; the insert then also requires that it still has none, so that an
 * isolate whose cached caller predates a switch cannot decide alone what the account's object decides.
 * `othersAvailable`: what its other shards have available, summed by its account's Durable Object, which
 * decides its live creations one at a time, until `decidedBefore` (an ISO instant): a statement D1 runs later
 * decides nothing, since the object may have been reset meanwhile and decided on without it (forger session 9,
 * X1).
 */
export type BalanceScope = { homeOnly: true } | { othersAvailable: number; decidedBefore: string };

/** D1's own clock, in `toISOString()`'s format, so that it compares with a Worker's instant as text. */
const D1_NOW = sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** The account object's decision is still the one in force: D1 runs the statement before its deadline. */
export const beforeDeadline = (decidedBefore: string) => sql`${D1_NOW} < ${decidedBefore}`;

/**
 * Where a session's insert is decided: as `BalanceScope` says, or, for a test session of an organization with
 * write shards (no balance), `keyLookedUpInShardsNow`: its Idempotency-Key was looked up in every shard its
 * home lists now (`liveCreationInShardsNow`), so the insert needs only the key free in its own shard.
 */
export type InsertScope = BalanceScope | { keyLookedUpInShardsNow: true };

/**
 * The organization still has no write shard: required of every insert made by a caller that knows of none, test
 * or live (forger session 9, W2): its cached list may predate a switch, and the key it retries may have created
 * a session in the write shard, which this database cannot see.
 */
const noWriteShard = (organizationId: string) => sql`NOT EXISTS (SELECT 1 FROM organization_write_shards WHERE organization_id = ${organizationId})`;

/** A live session is a promise on the balance: inserted only if the balance covers every promise plus this one. */
const withinBalance = (organizationId: string, othersAvailable: number) =>
  sql`(SELECT balance FROM organizations WHERE id = ${organizationId})
    - (SELECT COUNT(*) FROM capture_sessions WHERE organization_id = ${organizationId} AND holds_reservation = 1)
    - (SELECT COUNT(*) FROM proofs WHERE organization_id = ${organizationId} AND holds_reservation = 1) + ${othersAvailable} >= 1`;

/** The insert goes ahead only if its snapshot is stored. */
const snapshotStored = (sha256: string) => sql`EXISTS (SELECT 1 FROM template_snapshots WHERE sha256 = ${sha256})`;

/**
 * Snapshots this isolate has stored or seen stored, by shard and SHA-256: the next session copying one is inserted
 * alone, on condition that the snapshot is still there, rather than with the snapshot's content (most
 * sessions copy one of a few templates). A hint only: when the insert finds nothing, the full batch runs.
 */
const knownSnapshots = boundedCache<string, true>({ maxEntries: 1_000 });
/** A snapshot is stored in the shard of each session using it: the session's id names that shard. */
const snapshotInShard = (row: SessionToInsert) => `${shardOfId(row.id)}:${row.templateSha256}`;

/**
 * The attempt that creates a session (ADR 0046), recorded in the same batch: the Idempotency-Key's hash,
 * the request's, and the capture token sealed under the key, so that a retry can rebuild the answer.
 */
export interface SessionCreation {
  keyHash: string;
  requestHash: string;
  sealedToken: string;
  /** A creation recorded before this instant is past its 24 hours: its key may create a session again. */
  liveAfter: string;
}

/** No live creation holds the key: a session is inserted at most once per Idempotency-Key, whatever the Durable Object's record says. */
const keyFree = (creation: SessionCreation) =>
  sql`NOT EXISTS (SELECT 1 FROM capture_session_creations WHERE key_hash = ${creation.keyHash} AND created_at > ${creation.liveAfter})`;

/** The session's insert, returning its locale; with `snapshotMustBeStored`, made only if its snapshot is there. */
function insertSession(
  d1: D1Database,
  row: SessionToInsert,
  creation: SessionCreation,
  scope: InsertScope,
  snapshotMustBeStored: boolean,
): D1PreparedStatement {
  const columns = columnValues(row);
  const conditions = [
    keyFree(creation),
    ...(snapshotMustBeStored ? [snapshotStored(row.templateSha256)] : []),
    ...("homeOnly" in scope ? [noWriteShard(row.organizationId)] : []),
    ...(row.holdsReservation !== 0 ? [withinBalance(row.organizationId, "othersAvailable" in scope ? scope.othersAvailable : 0)] : []),
    ...("decidedBefore" in scope ? [beforeDeadline(scope.decidedBefore)] : []),
  ];
  const where = conditions.length === 0 ? sql`` : sql` WHERE ${sql.join(conditions, sql` AND `)}`;
  return statement(
    d1,
    sql`INSERT INTO capture_sessions (${sql.raw(columns.map(([name]) => name).join(", "))}) SELECT ${valueList(columns.map(([, value]) => value))}${where} RETURNING locale`,
  );
}

/**
 * The creation's record, made only if the session was (an expired record of the same key is replaced).
 * The statement after the session's insert in the same batch, so that both exist or neither.
 */
function insertCreation(d1: D1Database, row: SessionToInsert, creation: SessionCreation): D1PreparedStatement {
  return statement(
    d1,
    sql`INSERT OR REPLACE INTO capture_session_creations (key_hash, session_id, request_hash, sealed_token, created_at)
      SELECT ${creation.keyHash}, ${row.id}, ${creation.requestHash}, ${creation.sealedToken}, ${row.createdAt}
      WHERE EXISTS (SELECT 1 FROM capture_sessions WHERE id = ${row.id})`,
  );
}

/**
 * Inserts a session with the record of the attempt that created it, in one batch (atomic). A live session
 * is inserted only if the balance still covers every promise plus this one: a single statement, which D1
 * runs atomically on its one writer, so concurrent creations can never over-promise (ADR 0005); and only
 * if no live creation holds its Idempotency-Key (ADR 0046). Its locale is settled inside the insert. When
 * this isolate knows the template snapshot is stored, the snapshot is not sent, the insert being made on
 * condition that it still is (the retention sweep deletes snapshots no session uses); otherwise, or when
 * that insert finds nothing (the snapshot was deleted, the balance refused, the key was taken), the
 * snapshot is stored in the same batch unless that content is already there. One round trip for the whole
 * creation, two only then. Returns the locale stored, or null when nothing was inserted: the caller asks
 * `refusedCreation` whether the key was taken, else the balance refused. `d1` is the database of the shard
 * the session's id names; `scope` says where the rest of the balance is and what the caller knows of the
 * organization's shards (`InsertScope`).
 */
export async function insertSessionWithinBalance(
  d1: D1Database,
  row: SessionToInsert,
  creation: SessionCreation,
  scope: InsertScope,
): Promise<{ locale: string } | null> {
  if (knownSnapshots.get(snapshotInShard(row))) {
    const [inserted] = await d1.batch<{ locale: string }>([insertSession(d1, row, creation, scope, true), insertCreation(d1, row, creation)]);
    const stored = inserted!.results[0];
    if (stored !== undefined) return { locale: stored.locale };
  }
  const snapshot = statement(
    d1,
    sql`INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (${row.templateSha256}, ${row.templateSnapshotJson}, ${row.createdAt})`,
  );
  const [, inserted] = await d1.batch<{ locale: string }>([snapshot, insertSession(d1, row, creation, scope, false), insertCreation(d1, row, creation)]);
  knownSnapshots.set(snapshotInShard(row), true);
  const stored = inserted!.results[0];
  return stored === undefined ? null : { locale: stored.locale };
}

/** A creation recorded with the Idempotency-Key's hash and still live, with what its session's answer is rebuilt from. */
export interface LiveCreation {
  requestHash: string;
  sealedToken: string;
  session: Pick<CaptureSessionRow, "id" | "mode" | "expiresAt" | "compareTo">;
}

interface LiveCreationRow {
  request_hash: string;
  sealed_token: string;
  id: string;
  mode: "test" | "live";
  expires_at: string;
  compare_to: string | null;
}

const liveCreationStatement = (d1: D1Database, keyHash: string, liveAfter: string) =>
  statement(
    d1,
    sql`SELECT c.request_hash, c.sealed_token, s.id, s.mode, s.expires_at, s.compare_to FROM capture_session_creations c
      JOIN capture_sessions s ON s.id = c.session_id WHERE c.key_hash = ${keyHash} AND c.created_at > ${liveAfter}`,
  );

function liveCreationOf(row: LiveCreationRow | null | undefined): LiveCreation | null {
  if (row === null || row === undefined) return null;
  return {
    requestHash: row.request_hash,
    sealedToken: row.sealed_token,
    session: { id: row.id, mode: row.mode, expiresAt: row.expires_at, compareTo: row.compare_to },
  };
}

export async function findLiveCreation(d1: D1Database, keyHash: string, liveAfter: string): Promise<LiveCreation | null> {
  return liveCreationOf(await liveCreationStatement(d1, keyHash, liveAfter).first<LiveCreationRow>());
}

/** The live creation holding the key in any of these databases (shards of one organization), one look-up each, all at once. */
export async function findLiveCreationIn(d1s: readonly D1Database[], keyHash: string, liveAfter: string): Promise<LiveCreation | null> {
  const found = await Promise.all(d1s.map((d1) => findLiveCreation(d1, keyHash, liveAfter)));
  return found.find((one) => one !== null) ?? null;
}

/**
 * Why an insert added nothing, in one round trip as the look-up alone was: the live creation holding the key,
 * if any, and whether the organization has write shards now (read in its home shard: `d1` is home when the
 * insert was decided there alone, docs/adr/0070).
 */
export async function refusedCreation(
  d1: D1Database,
  keyHash: string,
  liveAfter: string,
  organizationId: string,
): Promise<{ earlier: LiveCreation | null; hasWriteShards: boolean }> {
  const [creations, writeShards] = await d1.batch<LiveCreationRow | { found: number }>([
    liveCreationStatement(d1, keyHash, liveAfter),
    statement(d1, sql`SELECT 1 AS found FROM organization_write_shards WHERE organization_id = ${organizationId} LIMIT 1`),
  ]);
  return { earlier: liveCreationOf(creations!.results[0] as LiveCreationRow | undefined), hasWriteShards: writeShards!.results.length > 0 };
}

/** Deletes up to `limit` creations recorded before `before` (past their 24 hours), oldest first; returns how many. */
export async function deleteExpiredCreations(d1: D1Database, before: string, limit: number): Promise<number> {
  const deleted = await statement(
    d1,
    sql`DELETE FROM capture_session_creations WHERE key_hash IN (SELECT key_hash FROM capture_session_creations WHERE created_at <= ${before} ORDER BY created_at LIMIT ${sql.raw(String(limit))})`,
  ).run();
  return deleted.meta.changes;
}

/** Sessions with their snapshot; every session has one, stored before its insert or in the same batch. */
async function selectSession(db: Database, where: SQL | undefined): Promise<SessionRow | null> {
  const row = await db
    .select({ session: captureSessions, templateSnapshot: templateSnapshots.content })
    .from(captureSessions)
    .innerJoin(templateSnapshots, eq(templateSnapshots.sha256, captureSessions.templateSha256))
    .where(where)
    .get();
  return row ? { ...row.session, templateSnapshot: row.templateSnapshot } : null;
}

export async function findSession(db: Database, organizationId: string, mode: Mode, id: string): Promise<SessionRow | null> {
  return selectSession(db, and(eq(captureSessions.id, id), eq(captureSessions.organizationId, organizationId), eq(captureSessions.mode, mode)));
}

export async function findSessionById(db: Database, id: string): Promise<SessionRow | null> {
  return selectSession(db, eq(captureSessions.id, id));
}

export async function findSessionByTokenHash(db: Database, tokenHash: string): Promise<SessionRow | null> {
  return selectSession(db, eq(captureSessions.tokenHash, tokenHash));
}
