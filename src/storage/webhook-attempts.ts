import { and, eq, inArray, ne, notInArray } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.ts";
import type { DeliveryRow, EndpointRow } from "./rows.ts";

export type NewAttempt = typeof webhookAttempts.$inferInsert;
export type DeliveryStatus = DeliveryRow["status"];

export async function findDelivery(db: Database, id: string): Promise<DeliveryRow | undefined> {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
}

/** The endpoint a delivery goes to, whatever its organization and mode (the delivery already names them). */
export async function findEndpointById(db: Database, id: string): Promise<EndpointRow | undefined> {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
}

export async function abandonDelivery(db: Database, id: string, reason: string, now: Date): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: "abandoned", failureReason: reason, nextAttemptAt: null, updatedAt: now.toISOString() })
    .where(eq(webhookDeliveries.id, id));
}

/**
 * When a delivery of `event` for the same capture to the same endpoint is still to be made (neither
 * succeeded nor abandoned), its next attempt time (null when it is not scheduled yet); undefined otherwise.
 */
export async function deliveryStillDue(
  db: Database,
  endpointId: string,
  sessionId: string,
  event: string,
): Promise<{ nextAttemptAt: string | null } | undefined> {
  return db
    .select({ nextAttemptAt: webhookDeliveries.nextAttemptAt })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.sessionId, sessionId),
        eq(webhookDeliveries.event, event),
        notInArray(webhookDeliveries.status, ["succeeded", "abandoned"]),
      ),
    )
    .get();
}

export interface AttemptResult {
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBodyStart: string | null;
  failureReason: string | null;
  nextAttemptAt: string | null;
  updatedAt: string;
}

/**
 * Records one attempt and the delivery's new state in one batch. The update takes effect only while the
 * delivery is as it was read (not succeeded, same attempt count), so a duplicate message cannot count twice.
 */
export async function recordAttempt(db: Database, delivery: DeliveryRow, attempt: NewAttempt & { attempt: number }, result: AttemptResult): Promise<void> {
  await db.batch([
    db.insert(webhookAttempts).values(attempt),
    db
      .update(webhookDeliveries)
      .set({ ...result, attempts: attempt.attempt })
      .where(and(eq(webhookDeliveries.id, delivery.id), ne(webhookDeliveries.status, "succeeded"), eq(webhookDeliveries.attempts, delivery.attempts))),
  ]);
}

/**
 * The same for an attempt that never reached the endpoint (its queue message was dead-lettered): it counts
 * only while the delivery is still pending or retrying with the attempt count read, so neither a duplicate
 * message nor a delivery abandoned meanwhile is changed.
 */
export async function recordDeadLetteredAttempt(
  db: Database,
  delivery: DeliveryRow,
  attempt: NewAttempt & { attempt: number },
  result: Omit<AttemptResult, "responseStatus" | "responseBodyStart">,
): Promise<void> {
  await db.batch([
    db.insert(webhookAttempts).values(attempt),
    db
      .update(webhookDeliveries)
      .set({ ...result, attempts: attempt.attempt })
      .where(
        and(
          eq(webhookDeliveries.id, delivery.id),
          inArray(webhookDeliveries.status, ["pending", "retrying"]),
          eq(webhookDeliveries.attempts, delivery.attempts),
        ),
      ),
  ]);
}

/** Makes a delivery due now, only from one of `from`; false when it was in none of them. */
export async function makeDueNow(db: Database, id: string, from: readonly DeliveryStatus[], now: Date): Promise<boolean> {
  const changed = await db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: now.toISOString(), updatedAt: now.toISOString() })
    .where(and(eq(webhookDeliveries.id, id), inArray(webhookDeliveries.status, [...from])))
    .returning({ id: webhookDeliveries.id });
  return changed.length > 0;
}
