import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import type { EVENT_CATALOGUE } from "../events/catalogue.ts";
import { newId } from "../lib/ids.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";

/** An event of the catalogue, as its builder makes it: `data` typed by that event's body. */
export type EventToRecord = ReturnType<(typeof EVENT_CATALOGUE)[number]["build"]>;

/**
 * The insert of one event, to be put in the same `db.batch` as the state change that causes it (an
 * outbox: no event for a change that did not happen, no change whose event is lost).
 */
export function eventInsert(db: Database, event: EventToRecord, id: string = newId("evt")) {
  return db.insert(events).values({ id, ...event });
}

/**
 * The same, inserted only when `condition` holds when the statement runs: placed after a conditional
 * update in one batch, the event exists exactly when the update took effect.
 */
export function eventInsertWhere(db: Database, event: EventToRecord, condition: SQL, id: string = newId("evt")) {
  return db.insert(events).select(
    // Every column in the table's order; dispatched_at starts empty.
    sql`SELECT ${id}, ${event.organizationId}, ${event.mode}, ${event.type}, ${JSON.stringify(event.data)}, ${event.createdAt}, NULL WHERE ${condition}`,
  );
}

/** A keyset page (`limit + 1` rows, newest first) of the organisation's events in this mode, of one type or all. */
export async function listEvents(db: Database, organizationId: string, mode: Mode, type: string | undefined, limit: number, after: Keyset | undefined) {
  const page = keysetPage({ createdAt: events.createdAt, id: events.id }, after);
  return db
    .select()
    .from(events)
    .where(and(eq(events.organizationId, organizationId), eq(events.mode, mode), type === undefined ? undefined : eq(events.type, type), page.where))
    .orderBy(...page.orderBy)
    .limit(limit + 1)
    .all();
}
