import type { Database } from "../db/client.ts";
import type { WorkerContext } from "../domain/context.ts";
import { newShardedId, shardOfId } from "../db/shards.ts";
import { chunks } from "../lib/batches.ts";
import { eventsAndTheirEndpoints, insertDeliveries, markEventsDispatched, unsentDeliveryIds } from "../storage/webhook-publishing.ts";
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
 */
export async function publishEvents(
  { env, db }: WorkerContext,
  eventIds: string[],
  now = new Date(),
  enqueue: Enqueue = (ids) => queueDeliveries(env, ids),
): Promise<void> {
  for (const round of chunks(eventIds, EVENTS_PER_ROUND)) await publishRound(db, round, now, enqueue);
}

async function publishRound(db: Database, eventIds: string[], now: Date, enqueue: Enqueue): Promise<void> {
  const { events: rows, endpoints } = await eventsAndTheirEndpoints(db, eventIds);
  if (rows.length === 0) return;
  const deliveries = rows.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.organizationId === event.organizationId && endpoint.mode === event.mode)
      .filter((endpoint) => endpoint.events.includes(event.type as (typeof endpoint.events)[number]))
      .map((endpoint) => ({
        // In the organization's shard, which its queue message finds by the id alone (docs/adr/0062).
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
  await insertDeliveries(db, deliveries);
  const found = rows.map((row) => row.id);
  // Every delivery of these events never attempted yet, not only those just made: when a Worker died
  // between making them and queueing them, the sweep publishing the event again must queue them.
  const unsent = await unsentDeliveryIds(db, found);
  if (unsent.length > 0) await enqueue(unsent);
  await markEventsDispatched(db, found, now);
}
