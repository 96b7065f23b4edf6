import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions, files, proofs } from "../db/schema/index.ts";
import { eventInsert, eventInsertWhere, type EventToRecord } from "./events.ts";
import type { SessionRow } from "./capture-sessions.ts";

/**
 * One batch: the open session completed with its proof, the proof (holding the live reservation the session
 * gives up), each declared file moved to it with the time storage observed it, the before's link to it, and
 * its event. Throws when the batch is refused (a concurrent completion, or the session no longer open).
 */
export async function recordCompletion(
  db: Database,
  completion: {
    session: SessionRow;
    proofId: string;
    completedAt: string;
    declaredFiles: readonly { id: string; capturedAt: string | undefined }[];
    event: EventToRecord;
    eventId: string;
  },
): Promise<void> {
  const { session, proofId, completedAt } = completion;
  await db.batch([
    db
      .update(captureSessions)
      .set({ status: "completed", completedAt, proofId, holdsReservation: 0, updatedAt: completedAt })
      .where(and(eq(captureSessions.id, session.id), eq(captureSessions.status, "open"))),
    db.insert(proofs).values({
      id: proofId,
      organizationId: session.organizationId,
      mode: session.mode,
      status: "pending",
      sessionId: session.id,
      externalReference: session.externalReference,
      party: session.party,
      stage: session.stage,
      category: session.category,
      locationReference: session.locationReference,
      templateId: session.templateId,
      templateSha256: session.templateSha256,
      compareTo: session.compareTo,
      holdsReservation: session.mode === "live" ? 1 : 0,
      createdAt: completedAt,
      updatedAt: completedAt,
    }),
    ...completion.declaredFiles.map((file) => db.update(files).set({ proofId, status: "uploaded", capturedAt: file.capturedAt }).where(eq(files.id, file.id))),
    ...(session.compareTo ? [db.update(proofs).set({ comparedBy: proofId, updatedAt: completedAt }).where(eq(proofs.id, session.compareTo))] : []),
    eventInsert(db, completion.event, completion.eventId),
  ]);
}

/**
 * One batch: the open session rejected (its reservation released) and its event, recorded only when this
 * rejection took effect. True when it did.
 */
export async function recordRejection(
  db: Database,
  rejection: { session: SessionRow; rejectedAt: string; event: EventToRecord; eventId: string },
): Promise<boolean> {
  const { session, rejectedAt } = rejection;
  const [, recorded] = await db.batch([
    db
      .update(captureSessions)
      .set({ status: "rejected", rejectedAt, holdsReservation: 0, updatedAt: rejectedAt })
      .where(and(eq(captureSessions.id, session.id), eq(captureSessions.status, "open"))),
    eventInsertWhere(
      db,
      rejection.event,
      sql`EXISTS (SELECT 1 FROM capture_sessions WHERE id = ${session.id} AND status = 'rejected' AND rejected_at = ${rejectedAt})`,
      rejection.eventId,
    ),
  ]);
  return recorded.meta.changes > 0;
}
