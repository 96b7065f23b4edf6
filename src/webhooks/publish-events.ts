import type { Database } from "../db/client.ts";
import type { WorkerContext } from "../domain/context.ts";
import type { Env } from "../env.ts";
import { newShardedId, shardDatabase, shardOfId, type ShardCode } from "../db/shards.ts";
import { chunks } from "../lib/batches.ts";
import type { EndpointRow, EventRow } from "../storage/rows.ts";
import {
  activeEndpointsOf,
  eventsAndTheirEndpoints,
  insertDeliveries,
  markEventsDispatched,
  type NewDelivery,
  unsentDeliveryIds,
} from "../storage/webhook-publishing.ts";
import { deliveryBody } from "./delivery-body.ts";
import { queueDeliveries } from "./attempt.ts";

/** Events handled per round of queries: one bound parameter each, well within D1's 100. */
const EVENTS_PER_ROUND = 50;

type Enqueue = (deliveryIds: string[]) => Promise<unknown>;

/**
 * Hands recorded events to delivery: one delivery per active endpoint of the same organization and mode
 * subscribed to the event (idempotent: UNIQUE (event, endpoint)), each sent through the webhook queue.
 * Called right after the batch that recorded the events; the cron sweep catches whatever a crash left.
 * Set-based, in rounds of events: a few queries per round, never one per event or per delivery.
 * `db` is the shard the events are in.
 */
export async function publishEvents(
  { env, db }: WorkerContext,
  eventIds: string[],
  now = new Date(),
  enqueue: Enqueue = (ids) => queueDeliveries(env, ids),
): Promise<void> {
  for (const round of chunks(eventIds, EVENTS_PER_ROUND)) await publishRound(env, db, round, now, enqueue);
}

/**
 * Where an event's deliveries go, when not to the shard it is in: the home shard of its organization (the shard its
 * id names), which keeps the endpoints, deliveries and attempts, for an event recorded in one of the organization's
 * write shards (docs/adr/0070). An event is in its session's shard, which the session's id names; the event's own id
 * was minted before shards and names none. Null when the event is in its organization's home shard.
 */
function awayHome(event: EventRow): ShardCode | null {
  const home = shardOfId(event.organizationId);
  const sessionId = event.data.session_id;
  return typeof sessionId === "string" && shardOfId(sessionId) !== home ? home : null;
}

async function publishRound(env: Env, db: Database, eventIds: string[], now: Date, enqueue: Enqueue): Promise<void> {
  const { events: rows, endpoints: here } = await eventsAndTheirEndpoints(db, eventIds);
  if (rows.length === 0) return;
  const homes = new Map<ShardCode | null, EventRow[]>();
  for (const event of rows) {
    const home = awayHome(event);
    homes.set(home, [...(homes.get(home) ?? []), event]);
  }
  for (const [home, events] of homes) {
    const target = home === null ? db : shardDatabase(env, home);
    const endpoints = home === null ? here : await activeEndpointsOf(target, [...new Set(events.map((event) => event.organizationId))]);
    await insertDeliveries(target, deliveriesOf(events, endpoints, now));
    // Every delivery of these events never attempted yet, not only those just made: when a Worker died
    // between making them and queueing them, the sweep publishing the event again must queue them.
    const unsent = await unsentDeliveryIds(
      target,
      events.map((event) => event.id),
    );
    if (unsent.length > 0) await enqueue(unsent);
  }
  await markEventsDispatched(
    db,
    rows.map((row) => row.id),
    now,
  );
}

function deliveriesOf(events: readonly EventRow[], endpoints: readonly EndpointRow[], now: Date): NewDelivery[] {
  return events.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.organizationId === event.organizationId && endpoint.mode === event.mode)
      .filter((endpoint) => endpoint.events.includes(event.type as (typeof endpoint.events)[number]))
      .map((endpoint) => ({
        // In the organization's home shard, which its queue message finds by the id alone (docs/adr/0062, 0070).
        id: newShardedId("wdl", shardOfId(event.organizationId)),
        organizationId: event.organizationId,
        mode: event.mode,
        endpointId: endpoint.id,
        eventId: event.id,
        event: event.type,
        sessionId: typeof event.data.session_id === "string" ? event.data.session_id : null,
        status: "pending" as const,
        requestBody: deliveryBody(event.type, event.data),
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      })),
  );
}
