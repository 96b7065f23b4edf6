import { and, eq, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions, templateSnapshots } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import type { TemplateSnapshot } from "../capture-templates/snapshot.ts";
import type { CaptureSessionRow } from "./rows.ts";

/** A session with its template snapshot (stored once per content in template_snapshots). */
export type SessionRow = CaptureSessionRow & { templateSnapshot: TemplateSnapshot };
/** `templateSnapshotJson` is the snapshot's canonical JSON, stored as is: its SHA-256 is `templateSha256`. */
export type NewSessionRow = typeof captureSessions.$inferInsert & { holdsReservation: number; templateSnapshotJson: string };

const COLUMNS = [
  "id", "organization_id", "mode", "status", "token_hash", "external_reference", "party", "stage", "category", "template_id",
  "template_sha256", "locale", "location_reference", "return_url", "compare_to", "holds_reservation",
  "created_at", "updated_at", "expires_at",
] as const;

function values(row: NewSessionRow): unknown[] {
  return [
    row.id, row.organizationId, row.mode, row.status, row.tokenHash, row.externalReference, row.party, row.stage ?? null,
    row.category ?? null, row.templateId ?? null, row.templateSha256, row.locale, row.locationReference ?? null,
    row.returnUrl ?? null, row.compareTo ?? null, row.holdsReservation, row.createdAt, row.updatedAt, row.expiresAt,
  ];
}

/**
 * Inserts a session. A live session is a promise on the balance, so it is inserted only if the balance
 * still covers every promise plus this one: a single statement, which D1 runs atomically on its one
 * writer, so concurrent creations can never over-promise (ADR 0005). Its template snapshot is stored in
 * the same batch unless that content is already there (the retention sweep, which deletes snapshots no
 * session uses, cannot run between the two). Returns false when refused.
 */
export async function insertSessionWithinBalance(d1: D1Database, row: NewSessionRow): Promise<boolean> {
  const placeholders = COLUMNS.map(() => "?").join(", ");
  const columns = COLUMNS.join(", ");
  const snapshot = d1
    .prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)")
    .bind(row.templateSha256, row.templateSnapshotJson, row.createdAt);
  if (row.holdsReservation === 0) {
    await d1.batch([snapshot, d1.prepare(`INSERT INTO capture_sessions (${columns}) VALUES (${placeholders})`).bind(...values(row))]);
    return true;
  }
  const [, result] = await d1.batch([
    snapshot,
    d1
      .prepare(
        `INSERT INTO capture_sessions (${columns})
         SELECT ${placeholders}
         WHERE (SELECT balance FROM organizations WHERE id = ?)
             - (SELECT COUNT(*) FROM capture_sessions WHERE organization_id = ? AND holds_reservation = 1)
             - (SELECT COUNT(*) FROM proofs WHERE organization_id = ? AND holds_reservation = 1) >= 1`,
      )
      .bind(...values(row), row.organizationId, row.organizationId, row.organizationId),
  ]);
  return result!.meta.changes === 1;
}

/** Sessions with their snapshot; every session has one, written in the batch that inserted it. */
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
