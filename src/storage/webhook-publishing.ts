import { and, asc, eq, getTableColumns, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { events, webhookDeliveries, webhookEndpoints } from "../db/schema/index.ts";
import { EMITTED_EVENTS } from "../events/types.ts";
import { chunks, rowsPerInsert } from "../lib/batches.ts";
import type { EndpointRow, EventRow } from "./rows.ts";
import { statement } from "./statement.ts";

export type NewDelivery = typeof webhookDeliveries.$inferInsert;

/** At most one bound value per column and row (drizzle binds defaults too). */
const DELIVERY_INSERT_COLUMNS = Object.keys(getTableColumns(webhookDeliveries)).length;

/**
 * The events (at most ~90 ids: one bound parameter each) and the active endpoints of their organizations,
 * in one round trip; the caller matches mode and subscription.
 */
export async function eventsAndTheirEndpoints(db: Database, eventIds: readonly string[]): Promise<{ events: EventRow[]; endpoints: EndpointRow[] }> {
  const ids = [...eventIds];
  const [eventRows, endpointRows] = await db.batch([
    db.select().from(events).where(inArray(events.id, ids)),
    db
      .select()
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.status, "active"),
          inArray(webhookEndpoints.organizationId, db.selectDistinct({ organizationId: events.organizationId }).from(events).where(inArray(events.id, ids))),
        ),
      ),
  ]);
  return { events: eventRows, endpoints: endpointRows };
}

/**
 * The active endpoints of these organizations (a few ids), read in their home shard for events recorded in one of
 * their write shards (docs/adr/0070): endpoints are never written there.
 */
export async function activeEndpointsOf(db: Database, organizationIds: readonly string[]): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.status, "active"), inArray(webhookEndpoints.organizationId, [...organizationIds])))
    .all();
}

/** Inserts deliveries (UNIQUE (event, endpoint): existing ones are kept), as multi-row inserts in one batch. */
export async function insertDeliveries(db: Database, rows: readonly NewDelivery[]): Promise<void> {
  const statements = chunks(rows, rowsPerInsert(DELIVERY_INSERT_COLUMNS)).map((slice) => db.insert(webhookDeliveries).values(slice).onConflictDoNothing());
  const [first, ...rest] = statements;
  if (first !== undefined) await db.batch([first, ...rest]);
}

/** Deliveries of these events never attempted yet (made now, or made by a Worker that died before queueing them). */
export async function unsentDeliveryIds(db: Database, eventIds: readonly string[]): Promise<string[]> {
  const rows = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.eventId, [...eventIds]), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, 0)))
    .all();
  return rows.map((row) => row.id);
}

export async function markEventsDispatched(db: Database, eventIds: readonly string[], now: Date): Promise<void> {
  await db
    .update(events)
    .set({ dispatchedAt: now.toISOString() })
    .where(inArray(events.id, [...eventIds]));
}

/** The oldest sent-type events recorded before `before` that nobody handed to delivery. */
export async function undispatchedEventIds(db: Database, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(and(isNull(events.dispatchedAt), lt(events.createdAt, before.toISOString()), inArray(events.type, [...EMITTED_EVENTS])))
    .orderBy(asc(events.createdAt))
    .limit(limit)
    .all();
  return rows.map((row) => row.id);
}

/**
 * Claims up to `limit` deliveries still to be attempted whose attempt fell due before `dueBefore`, in one
 * statement: their next attempt becomes `now`, so neither a concurrent sweep nor the next run takes them
 * again before they are overdue once more. Returns their ids.
 */
export async function claimOverdueDeliveries(d1: D1Database, dueBefore: Date, now: Date, limit: number): Promise<string[]> {
  const claimed = await statement(
    d1,
    sql`UPDATE webhook_deliveries SET next_attempt_at = ${now.toISOString()}, updated_at = ${now.toISOString()} WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE status IN ('pending', 'retrying') AND COALESCE(next_attempt_at, created_at) <= ${dueBefore.toISOString()}
         ORDER BY COALESCE(next_attempt_at, created_at) LIMIT ${limit}
       ) RETURNING id`,
  ).all<{ id: string }>();
  return claimed.results.map((row) => row.id);
}

/** Records when a delivery waiting for an earlier one will look again, so the overdue sweep leaves it alone. */
export async function setNextAttempt(db: Database, deliveryId: string, at: Date): Promise<void> {
  await db.update(webhookDeliveries).set({ nextAttemptAt: at.toISOString() }).where(eq(webhookDeliveries.id, deliveryId));
}
