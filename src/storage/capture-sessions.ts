import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions, templateSnapshots } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
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

/** A live session is a promise on the balance: inserted only if the balance covers every promise plus this one. */
const withinBalance = (organizationId: string) => sql`(SELECT balance FROM organizations WHERE id = ${organizationId})
    - (SELECT COUNT(*) FROM capture_sessions WHERE organization_id = ${organizationId} AND holds_reservation = 1)
    - (SELECT COUNT(*) FROM proofs WHERE organization_id = ${organizationId} AND holds_reservation = 1) >= 1`;

/** The insert goes ahead only if its snapshot is stored. */
const snapshotStored = (sha256: string) => sql`EXISTS (SELECT 1 FROM template_snapshots WHERE sha256 = ${sha256})`;

/**
 * Snapshots this isolate has stored or seen stored, by SHA-256: the next session copying one is inserted
 * alone, on condition that the snapshot is still there, rather than with the snapshot's content (most
 * sessions copy one of a few templates). A hint only: when the insert finds nothing, the full batch runs.
 */
const knownSnapshots = boundedCache<string, true>({ maxEntries: 1_000 });

/** The session's insert, returning its locale; with `snapshotMustBeStored`, made only if its snapshot is there. */
function insertSession(d1: D1Database, row: SessionToInsert, snapshotMustBeStored: boolean): D1PreparedStatement {
  const columns = columnValues(row);
  const conditions = [
    ...(snapshotMustBeStored ? [snapshotStored(row.templateSha256)] : []),
    ...(row.holdsReservation !== 0 ? [withinBalance(row.organizationId)] : []),
  ];
  const where = conditions.length === 0 ? sql`` : sql` WHERE ${sql.join(conditions, sql` AND `)}`;
  return statement(
    d1,
    sql`INSERT INTO capture_sessions (${sql.raw(columns.map(([name]) => name).join(", "))}) SELECT ${valueList(columns.map(([, value]) => value))}${where} RETURNING locale`,
  );
}

/**
 * Inserts a session. A live session is inserted only if the balance still covers every promise plus this
 * one: a single statement, which D1 runs atomically on its one writer, so concurrent creations can never
 * over-promise (ADR 0005). Its locale is settled inside the insert. When this isolate knows the template
 * snapshot is stored, the insert alone is sent, on condition that the snapshot still is (the retention
 * sweep deletes snapshots no session uses); otherwise, or when that insert finds nothing (the snapshot was
 * deleted, or the balance refused), the snapshot is stored in the same batch unless that content is
 * already there. One round trip for the whole creation, two only then. Returns the locale stored, or null
 * when the balance refused it.
 */
export async function insertSessionWithinBalance(d1: D1Database, row: SessionToInsert): Promise<{ locale: string } | null> {
  if (knownSnapshots.get(row.templateSha256)) {
    const inserted = await insertSession(d1, row, true).first<{ locale: string }>();
    if (inserted !== null) return { locale: inserted.locale };
  }
  const snapshot = statement(
    d1,
    sql`INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (${row.templateSha256}, ${row.templateSnapshotJson}, ${row.createdAt})`,
  );
  const [, inserted] = await d1.batch<{ locale: string }>([snapshot, insertSession(d1, row, false)]);
  knownSnapshots.set(row.templateSha256, true);
  const stored = inserted!.results[0];
  return stored === undefined ? null : { locale: stored.locale };
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
