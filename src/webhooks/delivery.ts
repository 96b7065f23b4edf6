import { and, eq, inArray, ne, notInArray } from "drizzle-orm";
import type { Env } from "../env.ts";
import { database, type Database } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import { chunks, sendInBatches } from "../lib/batches.ts";
import { eventsAndTheirEndpoints, insertDeliveries, markEventsDispatched, setNextAttempt, undispatchedEventIds, unsentDeliveryIds } from "../storage/webhook-publishing.ts";
import { isActiveSecret, secretsOf } from "../storage/webhooks.ts";
import { decryptSecret } from "./secrets.ts";
import { signatureHeader } from "./signature.ts";
import { webhookRetryDelay } from "./retry-schedule.ts";
import { deliveryTarget } from "./resolve-target.ts";
import { refusedDestination } from "./destination-check.ts";

const RESPONSE_START_BYTES = 1024;

/**
 * The start of a receiver's answer, read no further: a receiver streaming an endless or huge body must
 * neither exhaust the Worker's memory nor turn an answered 2xx into a failure.
 */
async function firstBytesOf(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const start = new Uint8Array(limit);
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.subarray(0, limit - size);
      start.set(take, size);
      size += take.length;
    }
  } catch {
    // The status line is the answer; a body that breaks off afterwards changes nothing.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(start.subarray(0, size));
}

const TIMEOUT_MS = 10_000;
/** How soon a proof.sealed delivery looks again while its capture_session.completed is still on its way. */
const ORDERING_WAIT_SECONDS = 5;
/** The longest delay Cloudflare Queues accepts for a message. */
const MAX_QUEUE_DELAY_SECONDS = 43_200;

export interface DeliveryMessage {
  delivery_id: string;
}

/** The exact body sent: `event` first, then the event's own fields. Serialised once and stored. */
export function deliveryBody(type: string, data: Record<string, unknown>, test = false): string {
  return JSON.stringify({ event: type, ...data, ...(test ? { test: true } : {}) });
}

/** Events handled per round of queries: one bound parameter each, well within D1's 100. */
const EVENTS_PER_ROUND = 50;
/** Events the sweep hands over per run (each minute): a backlog drains over the following runs. */
const SWEEP_EVENTS_PER_RUN = 200;

/** Sends delivery messages in as many `sendBatch` calls as Queues' limits (100 messages, 256 KB) require. */
const sendDeliveryMessages = (env: Env) => (ids: string[]) => sendInBatches(env.WEBHOOK_QUEUE, ids.map((id) => ({ delivery_id: id }) satisfies DeliveryMessage));

/**
 * Hands recorded events to delivery: one delivery per active endpoint of the same organization and mode
 * subscribed to the event (idempotent: UNIQUE (event, endpoint)), each sent through the webhook queue.
 * Called right after the batch that recorded the events; the cron sweep catches whatever a crash left.
 * Set-based, in rounds of events: a few queries per round, never one per event or per delivery.
 */
export async function publishEvents(
  env: Env,
  eventIds: string[],
  now = new Date(),
  enqueue: (deliveryIds: string[]) => Promise<unknown> = sendDeliveryMessages(env),
): Promise<void> {
  const db = database(env.DB);
  for (const round of chunks(eventIds, EVENTS_PER_ROUND)) await publishRound(db, round, now, enqueue);
}

async function publishRound(db: Database, eventIds: string[], now: Date, enqueue: (deliveryIds: string[]) => Promise<unknown>): Promise<void> {
  const { events: rows, endpoints } = await eventsAndTheirEndpoints(db, eventIds);
  if (rows.length === 0) return;
  const deliveries = rows.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.organizationId === event.organizationId && endpoint.mode === event.mode)
      .filter((endpoint) => endpoint.events.includes(event.type as (typeof endpoint.events)[number]))
      .map((endpoint) => ({
        id: newId("wdl"),
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

/** Cron sweep: events older than 30 s that nobody published (a Worker died between commit and publish), oldest first. */
export async function publishUndispatchedEvents(env: Env, now: Date): Promise<void> {
  const stale = await undispatchedEventIds(database(env.DB), new Date(now.getTime() - 30_000), SWEEP_EVENTS_PER_RUN);
  await publishEvents(env, stale, now);
}

export type AttemptOutcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

/**
 * How long a `proof.sealed` delivery must wait for the same capture's `capture_session.completed` to the
 * same endpoint (delivered first): until that one's next attempt, plus a moment; null when none is due.
 */
async function orderingWaitSeconds(db: Database, delivery: typeof webhookDeliveries.$inferSelect, now: Date): Promise<number | null> {
  if (delivery.event !== "proof.sealed" || delivery.sessionId === null) return null;
  const earlier = await db
    .select({ nextAttemptAt: webhookDeliveries.nextAttemptAt })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, delivery.endpointId),
        eq(webhookDeliveries.sessionId, delivery.sessionId),
        eq(webhookDeliveries.event, "capture_session.completed"),
        notInArray(webhookDeliveries.status, ["succeeded", "abandoned"]),
      ),
    )
    .get();
  if (earlier === undefined) return null;
  const untilNext = earlier.nextAttemptAt === null ? 0 : Math.ceil((Date.parse(earlier.nextAttemptAt) - now.getTime()) / 1000);
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(ORDERING_WAIT_SECONDS, untilNext + ORDERING_WAIT_SECONDS));
}

/**
 * One attempt of one delivery: signed with every active secret, 10-second timeout, redirects not
 * followed; every attempt is recorded. A non-2xx answer or a network error schedules the next retry,
 * until the fifth retry fails and the delivery is abandoned. Deleted or disabled endpoints receive
 * nothing: the delivery is abandoned with that reason (re-enabling does not replay it; use retry).
 */
export async function attemptDelivery(env: Env, deliveryId: string, now = new Date()): Promise<AttemptOutcome> {
  const db = database(env.DB);
  const delivery = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  if (!delivery || delivery.status === "succeeded" || delivery.status === "abandoned") return { kind: "done" };
  const endpoint = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, delivery.endpointId)).get();
  if (endpoint?.status !== "active") {
    await db
      .update(webhookDeliveries)
      .set({ status: "abandoned", failureReason: endpoint ? "endpoint_disabled" : "endpoint_deleted", nextAttemptAt: null, updatedAt: now.toISOString() })
      .where(eq(webhookDeliveries.id, delivery.id));
    return { kind: "done" };
  }
  const wait = await orderingWaitSeconds(db, delivery, now);
  if (wait !== null) {
    // Its next look is due then: until that time the overdue-delivery sweep must not count it as lost.
    await setNextAttempt(db, delivery.id, new Date(now.getTime() + wait * 1000));
    return { kind: "retry", delaySeconds: wait };
  }

  const secrets = ((await secretsOf(db, [endpoint.id])).get(endpoint.id) ?? []).filter((secret) => isActiveSecret(secret, now));
  const clear = await Promise.all(secrets.map((secret) => decryptSecret(env.WEBHOOK_SECRET_KEY, secret)));
  const webhookId = newId("msg");
  const target = deliveryTarget(env, endpoint.url);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "proof-sealing-webhooks/1",
    "X-Signature": await signatureHeader(delivery.requestBody, clear, Math.floor(now.getTime() / 1000)),
    "X-Webhook-Id": webhookId,
    "X-Event-Id": delivery.eventId,
  };
  if (target.host) headers["X-Forwarded-Host"] = target.host;
  const started = Date.now();
  let status: number | null = null;
  let responseStart: string | null = null;
  let failure: string | null = null;
  // A name that resolves inside a network receives nothing (WEBHOOK_RESOLVE's local receivers excepted).
  failure = target.host === null ? await refusedDestination(env, new URL(target.url).hostname, now) : null;
  if (failure === null) {
    try {
      const response = await fetch(target.url, { method: "POST", headers, body: delivery.requestBody, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
      status = response.status;
      responseStart = await firstBytesOf(response, RESPONSE_START_BYTES);
      if (status < 200 || status >= 300) failure = `endpoint answered HTTP ${status}`;
    } catch (error) {
      failure = (error as Error).name === "TimeoutError" ? "timed out after 10 s" : `network error: ${(error as Error).message}`;
    }
  }
  const attempt = delivery.attempts + 1;
  const delay = failure === null ? null : webhookRetryDelay(env, attempt);
  const nextStatus = failure === null ? "succeeded" : delay === null ? "abandoned" : "retrying";
  await db.batch([
    db.insert(webhookAttempts).values({
      id: newId("wat"),
      deliveryId: delivery.id,
      attempt,
      webhookId,
      startedAt: now.toISOString(),
      durationMs: Date.now() - started,
      responseStatus: status,
      responseBodyStart: responseStart,
      failureReason: failure,
    }),
    db
      .update(webhookDeliveries)
      .set({
        status: nextStatus,
        attempts: attempt,
        responseStatus: status,
        responseBodyStart: responseStart,
        failureReason: failure,
        nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000).toISOString(),
        updatedAt: now.toISOString(),
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), ne(webhookDeliveries.status, "succeeded"), eq(webhookDeliveries.attempts, delivery.attempts))),
  ]);
  return delay === null ? { kind: "done" } : { kind: "retry", delaySeconds: delay };
}

/**
 * Attempts each delivery. A later attempt is a new message sent with its delay, then the current one is
 * acknowledged: `message.retry` would count against the queue's `max_retries`, which a delivery waiting
 * for its capture's earlier event, or a long retry schedule, could exhaust, and the queue would then
 * drop the message and the delivery with it.
 */
export async function consumeWebhookMessages(
  messages: readonly Message<unknown>[],
  env: Env,
  sendLater: (deliveryId: string, delaySeconds: number) => Promise<unknown> = (id, delaySeconds) =>
    env.WEBHOOK_QUEUE.send({ delivery_id: id } satisfies DeliveryMessage, { delaySeconds }),
): Promise<void> {
  for (const message of messages) {
    const { delivery_id: deliveryId } = message.body as DeliveryMessage;
    const outcome = await attemptDelivery(env, deliveryId);
    if (outcome.kind === "retry") await sendLater(deliveryId, outcome.delaySeconds);
    message.ack();
  }
}

/**
 * A manual retry makes sense for an abandoned delivery, or one waiting for its next retry. A pending one
 * is already queued (a second message would send it twice at once) and a succeeded one was received.
 */
export const RETRYABLE_DELIVERY_STATUSES = ["abandoned", "retrying"] as const;

/**
 * Sends an abandoned or failing delivery again now (the delivery log's retry). Conditional on its status,
 * so that two concurrent retries queue it once; false when it was not in a retryable status.
 */
export async function retryDeliveryNow(env: Env, deliveryId: string, now = new Date()): Promise<boolean> {
  const db = database(env.DB);
  const changed = await db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: now.toISOString(), updatedAt: now.toISOString() })
    .where(and(eq(webhookDeliveries.id, deliveryId), inArray(webhookDeliveries.status, [...RETRYABLE_DELIVERY_STATUSES])))
    .returning({ id: webhookDeliveries.id });
  if (changed.length === 0) return false;
  await env.WEBHOOK_QUEUE.send({ delivery_id: deliveryId } satisfies DeliveryMessage);
  return true;
}
