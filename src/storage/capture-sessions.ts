import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";

export type SessionRow = typeof captureSessions.$inferSelect;
export type NewSessionRow = typeof captureSessions.$inferInsert & { holdsReservation: number };

const COLUMNS = [
  "id", "organization_id", "mode", "status", "token_hash", "external_reference", "party", "stage", "category", "template_id",
  "template_snapshot", "template_sha256", "locale", "location_reference", "return_url", "compare_to", "holds_reservation",
  "created_at", "updated_at", "expires_at",
] as const;

function values(row: NewSessionRow): unknown[] {
  return [
    row.id, row.organizationId, row.mode, row.status, row.tokenHash, row.externalReference, row.party, row.stage ?? null,
    row.category ?? null, row.templateId ?? null, row.templateSnapshot, row.templateSha256, row.locale, row.locationReference ?? null,
    row.returnUrl ?? null, row.compareTo ?? null, row.holdsReservation, row.createdAt, row.updatedAt, row.expiresAt,
  ];
}

/**
 * Inserts a session. A live session is a promise on the balance, so it is inserted only if the balance
 * still covers every promise plus this one: a single statement, which D1 runs atomically on its one
 * writer, so concurrent creations can never over-promise (ADR 0005). Returns false when refused.
 */
export async function insertSessionWithinBalance(d1: D1Database, row: NewSessionRow): Promise<boolean> {
  const placeholders = COLUMNS.map(() => "?").join(", ");
  const columns = COLUMNS.join(", ");
  if (row.holdsReservation === 0) {
    await d1.prepare(`INSERT INTO capture_sessions (${columns}) VALUES (${placeholders})`).bind(...values(row)).run();
    return true;
  }
  const result = await d1
    .prepare(
      `INSERT INTO capture_sessions (${columns})
       SELECT ${placeholders}
       WHERE (SELECT balance FROM organizations WHERE id = ?)
           - (SELECT COUNT(*) FROM capture_sessions WHERE organization_id = ? AND holds_reservation = 1)
           - (SELECT COUNT(*) FROM proofs WHERE organization_id = ? AND holds_reservation = 1) >= 1`,
    )
    .bind(...values(row), row.organizationId, row.organizationId, row.organizationId)
    .run();
  return result.meta.changes === 1;
}

export async function findSession(db: Database, organizationId: string, mode: Mode, id: string): Promise<SessionRow | null> {
  const row = await db
    .select()
    .from(captureSessions)
    .where(and(eq(captureSessions.id, id), eq(captureSessions.organizationId, organizationId), eq(captureSessions.mode, mode)))
    .get();
  return row ?? null;
}

export async function findSessionById(db: Database, id: string): Promise<SessionRow | null> {
  return (await db.select().from(captureSessions).where(eq(captureSessions.id, id)).get()) ?? null;
}
