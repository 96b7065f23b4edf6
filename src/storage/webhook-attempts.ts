import { and, eq, inArray, ne, notInArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.ts";
import type { DeliveryRow, EndpointRow } from "./rows.ts";
import { statement } from "./statement.ts";

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

/** An attempt about to send its request: recorded as started before the request leaves (ADR 0050). */
export interface StartingAttempt {
  id: string;
  attempt: number;
  webhookId: string;
  startedAt: string;
}

/**
 * Records an attempt as started, only while the delivery is still to be made with the attempt count read
 * and no other attempt of it is in flight: a duplicate message (a sweep's, a redelivery) finds the attempt
 * started and sends nothing. True when this attempt may send its request.
 */
export async function startAttempt(d1: D1Database, delivery: DeliveryRow, attempt: StartingAttempt): Promise<boolean> {
  const started = await statement(
    d1,
    sql`INSERT INTO webhook_attempts (id, delivery_id, attempt, webhook_id, started_at, duration_ms, state)
      SELECT ${attempt.id}, ${delivery.id}, ${attempt.attempt}, ${attempt.webhookId}, ${attempt.startedAt}, 0, 'started'
      WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ${delivery.id} AND status IN ('pending', 'retrying') AND attempts = ${delivery.attempts})
        AND NOT EXISTS (SELECT 1 FROM webhook_attempts WHERE delivery_id = ${delivery.id} AND state = 'started')
      RETURNING id`,
  ).first();
  return started !== null;
}

/** What an attempt's request came to. */
export interface AttemptOutcome {
  durationMs: number;
  responseStatus: number | null;
  responseBodyStart: string | null;
  failureReason: string | null;
}

/**
 * Completes a started attempt and records the delivery's new state in one batch. The attempt is completed
 * even if the sweep already called it interrupted (its Worker was only slow): the record says what
 * happened. The delivery's update takes effect only while the delivery is as it was read (not succeeded,
 * same attempt count), so a duplicate message cannot count twice.
 */
export async function recordAttempt(
  db: Database,
  delivery: DeliveryRow,
  attempt: { id: string; attempt: number },
  outcome: AttemptOutcome,
  result: AttemptResult,
): Promise<void> {
  await db.batch([
    db
      .update(webhookAttempts)
      .set({ ...outcome, state: "completed" })
      .where(and(eq(webhookAttempts.id, attempt.id), inArray(webhookAttempts.state, ["started", "interrupted"]))),
    db
      .update(webhookDeliveries)
      .set({ ...result, attempts: attempt.attempt })
      .where(and(eq(webhookDeliveries.id, delivery.id), ne(webhookDeliveries.status, "succeeded"), eq(webhookDeliveries.attempts, delivery.attempts))),
  ]);
}

/** An attempt left started by a Worker that died, with its delivery's state. */
export interface InterruptedAttempt {
  id: string;
  deliveryId: string;
  attempt: number;
}

/** Up to `limit` attempts started at or before `startedBefore` and never completed, oldest first. */
export async function findInterruptedAttempts(d1: D1Database, startedBefore: string, limit: number): Promise<InterruptedAttempt[]> {
  const rows = await statement(
    d1,
    sql`SELECT id, delivery_id, attempt FROM webhook_attempts WHERE state = 'started' AND started_at <= ${startedBefore} ORDER BY started_at LIMIT ${sql.raw(String(limit))}`,
  ).all<{ id: string; delivery_id: string; attempt: number }>();
  return rows.results.map((row) => ({ id: row.id, deliveryId: row.delivery_id, attempt: row.attempt }));
}

/**
 * Records each attempt as interrupted and counts it against its delivery, in one batch (two statements an
 * attempt): the delivery moves on only while its attempt count is the one before the attempt, so an attempt
 * completed meanwhile, or resolved by a concurrent sweep, is counted once. Returns the deliveries moved on.
 */
export async function resolveInterruptedAttempts(
  db: Database,
  resolved: ReadonlyArray<{ attempt: InterruptedAttempt; failureReason: string; result: Omit<AttemptResult, "responseStatus" | "responseBodyStart"> }>,
): Promise<string[]> {
  const statements = resolved.flatMap(({ attempt, failureReason, result }) => [
    db
      .update(webhookAttempts)
      .set({ state: "interrupted", failureReason })
      .where(and(eq(webhookAttempts.id, attempt.id), eq(webhookAttempts.state, "started"))),
    db
      .update(webhookDeliveries)
      .set({ ...result, responseStatus: null, responseBodyStart: null, attempts: attempt.attempt })
      .where(
        and(
          eq(webhookDeliveries.id, attempt.deliveryId),
          inArray(webhookDeliveries.status, ["pending", "retrying"]),
          eq(webhookDeliveries.attempts, attempt.attempt - 1),
        ),
      )
      .returning({ id: webhookDeliveries.id }),
  ]);
  const [first, ...rest] = statements;
  if (first === undefined) return [];
  const results = await db.batch([first, ...rest]);
  return results.filter((_, index) => index % 2 === 1).flatMap((rows) => (rows as { id: string }[]).map((row) => row.id));
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
