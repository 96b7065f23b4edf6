import type { Env } from "../env.ts";
import type { WorkerContext } from "../domain/context.ts";
import { newId } from "../lib/ids.ts";
import { chunks, QUEUE_MAX_MESSAGES_PER_BATCH, sendInBatches } from "../lib/batches.ts";
import { setNextAttempt } from "../storage/webhook-publishing.ts";
import { isActiveSecret, secretsOf } from "../storage/webhooks.ts";
import { abandonDelivery, findDelivery, findEndpointById, recordAttempt, startAttempt } from "../storage/webhook-attempts.ts";
import { decryptSecret } from "./secrets.ts";
import { webhookRetryDelay } from "./retry-schedule.ts";
import { orderingWaitSeconds } from "./ordering-wait.ts";
import { signatureHeader } from "./signature.ts";
import { deliveryTarget } from "./resolve-target.ts";
import { refusedDestination } from "./destination-check.ts";
import { firstBytesOf } from "./response-start.ts";

// Attempting deliveries, from the queue to the receiver: the webhook queue's message, its consumer, one
// attempt and its HTTP request. Which deliveries exist is the outbox fan-out's (src/webhooks/publish-events.ts).

/** A webhook queue message: the delivery's id only; the body and its state are read from the delivery log. */
export interface DeliveryMessage {
  delivery_id: string;
}

export const deliveryMessage = (deliveryId: string): DeliveryMessage => ({ delivery_id: deliveryId });

/** Queues deliveries in as many `sendBatch` calls as Queues' limits (100 messages, 256 KB) require. */
export async function queueDeliveries(env: Env, deliveryIds: readonly string[]): Promise<void> {
  await sendInBatches(env.WEBHOOK_QUEUE, deliveryIds.map(deliveryMessage));
}

/** Queues each delivery's next attempt after its own delay: 100 messages a `sendBatch` (each message is a few bytes). */
export async function queueDeliveryRetries(env: Env, retries: ReadonlyArray<{ deliveryId: string; delaySeconds: number }>): Promise<void> {
  for (const batch of chunks(retries, QUEUE_MAX_MESSAGES_PER_BATCH)) {
    await env.WEBHOOK_QUEUE.sendBatch(batch.map((retry) => ({ body: deliveryMessage(retry.deliveryId), delaySeconds: retry.delaySeconds })));
  }
}

/**
 * Attempts each delivery. A later attempt is a new message sent with its delay, then the current one is
 * acknowledged: `message.retry` would count against the queue's `max_retries`, which a delivery waiting
 * for its capture's earlier event, or a long retry schedule, could exhaust, and the queue would then
 * drop the message and the delivery with it.
 */
export async function consumeWebhookMessages(
  messages: readonly Message<unknown>[],
  worker: WorkerContext,
  sendLater: (deliveryId: string, delaySeconds: number) => Promise<unknown> = (id, delaySeconds) =>
    worker.env.WEBHOOK_QUEUE.send(deliveryMessage(id), { delaySeconds }),
): Promise<void> {
  for (const message of messages) {
    const { delivery_id: deliveryId } = message.body as DeliveryMessage;
    const outcome = await attemptDelivery(worker, deliveryId);
    if (outcome.kind === "retry") await sendLater(deliveryId, outcome.delaySeconds);
    message.ack();
  }
}

export type AttemptOutcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

/**
 * One attempt of one delivery: signed with every active secret, 10-second timeout, redirects not
 * followed; every attempt is recorded, as started before its request and completed after it. A non-2xx answer or a network error schedules the next retry,
 * until the fifth retry fails and the delivery is abandoned. Deleted or disabled endpoints receive
 * nothing: the delivery is abandoned with that reason (re-enabling does not replay it; use retry).
 */
export async function attemptDelivery({ env, db }: WorkerContext, deliveryId: string, now = new Date()): Promise<AttemptOutcome> {
  const delivery = await findDelivery(db, deliveryId);
  if (!delivery || delivery.status === "succeeded" || delivery.status === "abandoned") return { kind: "done" };
  const endpoint = await findEndpointById(db, delivery.endpointId);
  if (endpoint?.status !== "active") {
    await abandonDelivery(db, delivery.id, endpoint ? "endpoint_disabled" : "endpoint_deleted", now);
    return { kind: "done" };
  }
  // A duplicate message (the overdue sweep's, a redelivery) arriving well before the attempt it would make
  // is due sends nothing: the delivery's own message, or the sweep, comes at that time.
  if (delivery.nextAttemptAt !== null && Date.parse(delivery.nextAttemptAt) - now.getTime() > EARLY_MESSAGE_TOLERANCE_MS) return { kind: "done" };

  const wait = await orderingWaitSeconds(db, delivery, now);
  if (wait !== null) {
    // Its next look is due then: until that time the overdue-delivery sweep must not count it as lost.
    await setNextAttempt(db, delivery.id, new Date(now.getTime() + wait * 1000));
    return { kind: "retry", delaySeconds: wait };
  }

  const secrets = ((await secretsOf(db, [endpoint.id])).get(endpoint.id) ?? []).filter((secret) => isActiveSecret(secret, now));
  const clear = await Promise.all(secrets.map((secret) => decryptSecret(env.WEBHOOK_SECRET_KEY, secret)));
  const attempt = { id: newId("wat"), attempt: delivery.attempts + 1, webhookId: newId("msg"), startedAt: now.toISOString() };
  // On record before the request leaves: a Worker that dies during it leaves a started attempt, which the
  // sweep resolves (ADR 0050); another attempt of the delivery in flight means this message sends nothing.
  if (!(await startAttempt(db.$client, delivery, attempt))) return { kind: "done" };
  const sent = await sendDeliveryRequest(env, endpoint.url, delivery.requestBody, delivery.eventId, attempt.webhookId, clear, now);
  const delay = sent.failure === null ? null : webhookRetryDelay(env, attempt.attempt);
  await recordAttempt(
    db,
    delivery,
    attempt,
    { durationMs: sent.durationMs, responseStatus: sent.responseStatus, responseBodyStart: sent.responseBodyStart, failureReason: sent.failure },
    {
      status: sent.failure === null ? "succeeded" : delay === null ? "abandoned" : "retrying",
      responseStatus: sent.responseStatus,
      responseBodyStart: sent.responseBodyStart,
      failureReason: sent.failure,
      nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000).toISOString(),
      updatedAt: now.toISOString(),
    },
  );
  return delay === null ? { kind: "done" } : { kind: "retry", delaySeconds: delay };
}

/** How early a message may arrive for its attempt (a queue's delay is not to the second) and still make it. */
const EARLY_MESSAGE_TOLERANCE_MS = 30_000;

/** An attempt's request gives up after this long. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
const RESPONSE_START_BYTES = 1024;

interface SentRequest {
  durationMs: number;
  responseStatus: number | null;
  responseBodyStart: string | null;
  /** Why the attempt failed; null for a 2xx answer. */
  failure: string | null;
}

/**
 * The HTTP request of one attempt: the stored body signed with every secret given, 10-second timeout,
 * redirects not followed. A name that resolves inside a network receives nothing (WEBHOOK_RESOLVE's local
 * receivers excepted); a non-2xx answer or a network error is a failure.
 */
async function sendDeliveryRequest(
  env: Env,
  url: string,
  body: string,
  eventId: string,
  webhookId: string,
  secrets: string[],
  now: Date,
): Promise<SentRequest> {
  const target = deliveryTarget(env, url);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "proof-sealing-webhooks/1",
    "X-Signature": await signatureHeader(body, secrets, Math.floor(now.getTime() / 1000)),
    "X-Webhook-Id": webhookId,
    "X-Event-Id": eventId,
  };
  if (target.host) headers["X-Forwarded-Host"] = target.host;
  const started = Date.now();
  let responseStatus: number | null = null;
  let responseBodyStart: string | null = null;
  let failure = target.host === null ? await refusedDestination(env, new URL(target.url).hostname, now) : null;
  if (failure === null) {
    try {
      const response = await fetch(target.url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) });
      responseStatus = response.status;
      responseBodyStart = await firstBytesOf(response, RESPONSE_START_BYTES);
      if (responseStatus < 200 || responseStatus >= 300) failure = `endpoint answered HTTP ${responseStatus}`;
    } catch (error) {
      failure = (error as Error).name === "TimeoutError" ? "timed out after 10 s" : `network error: ${(error as Error).message}`;
    }
  }
  return { durationMs: Date.now() - started, responseStatus, responseBodyStart, failure };
}
