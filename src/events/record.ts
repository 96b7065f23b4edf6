import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { newId } from "../lib/ids.ts";
import type { EmittedEvent } from "./types.ts";

export interface EventToRecord {
  organizationId: string;
  mode: Mode;
  type: EmittedEvent;
  /** The body fields that follow `event`, in the order they are sent. */
  data: Record<string, unknown>;
  createdAt: string;
}

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
