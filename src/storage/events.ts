import { and, asc, eq, isNotNull, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import type { EVENT_CATALOGUE } from "../events/catalogue.ts";
import { newId } from "../lib/ids.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { type ArchiveTally, idsOf, moveToArchive, pageWithArchive } from "./archive-chunks.ts";
import type { EventRow } from "./rows.ts";

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

/**
 * A keyset page (`limit + 1` rows, newest first) of the organisation's events in this mode, of one type or all:
 * D1's, then those archived to R2 after 30 days (docs/adr/0067), as one log.
 */
export async function listEvents(
  db: Database,
  store: ObjectStore,
  organizationId: string,
  mode: Mode,
  type: string | undefined,
  limit: number,
  after: Keyset | undefined,
): Promise<EventRow[]> {
  const page = keysetPage({ createdAt: events.createdAt, id: events.id }, after);
  const live = await db
    .select()
    .from(events)
    .where(and(eq(events.organizationId, organizationId), eq(events.mode, mode), type === undefined ? undefined : eq(events.type, type), page.where))
    .orderBy(...page.orderBy)
    .limit(limit + 1)
    .all();
  const scope = { organizationId, mode, kind: "events" as const };
  return pageWithArchive(db.$client, store, scope, [type], (row) => type === undefined || row.type === type, live, limit, after);
}

/**
 * Moves up to `limit` events created before `before` and already handed to delivery (the outbox is done with
 * them) to the archive, oldest first: per organization, mode and day, one chunk object in R2 (one write), then in
 * one batch the chunk's D1 row and the events' deletion, which take effect only if every event is still there.
 * Returns the events moved and the R2 writes made, at most `maxWrites` (the rows of chunks left out wait for the
 * next round).
 */
export async function archiveEvents(db: Database, store: ObjectStore, before: string, limit: number, maxWrites: number): Promise<ArchiveTally> {
  const due = await db
    .select()
    .from(events)
    .where(and(isNotNull(events.dispatchedAt), lt(events.createdAt, before)))
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(limit)
    .all();
  return moveToArchive(db.$client, store, due, maxWrites, {
    kind: "events",
    filterOf: (row) => [row.type],
    writesOf: () => 1,
    stillThere: (rows) => sql`(SELECT COUNT(*) FROM events WHERE id IN ${idsOf(rows)}) = ${rows.length}`,
    deletes: (rows, committed) => [sql`DELETE FROM events WHERE id IN ${idsOf(rows)} AND ${committed}`],
  });
}
