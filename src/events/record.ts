import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import type { EVENT_CATALOGUE } from "./catalogue.ts";

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
  return db
    .insert(events)
    .select(
      // Every column in the table's order; dispatched_at starts empty.
      sql`SELECT ${id}, ${event.organizationId}, ${event.mode}, ${event.type}, ${JSON.stringify(event.data)}, ${event.createdAt}, NULL WHERE ${condition}`,
    );
}
