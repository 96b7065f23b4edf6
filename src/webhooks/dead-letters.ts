import type { WorkerContext } from "../domain/context.ts";
import { findDelivery, recordDeadLetteredAttempt } from "../storage/webhook-attempts.ts";
import { newId } from "../lib/ids.ts";
import { webhookRetryDelay } from "./retry-schedule.ts";
import type { DeliveryMessage } from "./attempt.ts";

/** Recorded as the attempt's failure, so the delivery log says why nothing reached the endpoint. */
export const DEAD_LETTER_FAILURE = "not attempted: the delivery's message failed in the consumer and was dead-lettered";

/**
 * Consumer of the webhook queue's dead-letter queue. A message lands there after the consumer failed on
 * it `max_retries` times (an exception, e.g. the database unreachable; an endpoint's failure is a normal
 * retry and never lands here). Each counts as one failed attempt of its delivery on the usual schedule:
 * the overdue-delivery sweep queues it again when that next attempt falls due, and a delivery that keeps
 * failing this way is abandoned like any other instead of circling for ever.
 */
export async function consumeDeadLetters(messages: readonly Message<unknown>[], { env, db }: WorkerContext, now = new Date()): Promise<void> {
  for (const message of messages) {
    const { delivery_id: deliveryId } = message.body as DeliveryMessage;
    const delivery = await findDelivery(db, deliveryId);
    if (delivery !== undefined && (delivery.status === "pending" || delivery.status === "retrying")) {
      const attempt = delivery.attempts + 1;
      const delay = webhookRetryDelay(env, attempt);
      await recordDeadLetteredAttempt(
        db,
        delivery,
        { id: newId("wat"), deliveryId, attempt, webhookId: newId("msg"), startedAt: now.toISOString(), durationMs: 0, failureReason: DEAD_LETTER_FAILURE },
        {
          status: delay === null ? "abandoned" : "retrying",
          failureReason: DEAD_LETTER_FAILURE,
          nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000).toISOString(),
          updatedAt: now.toISOString(),
        },
      );
    }
    console.error(JSON.stringify({ level: "error", message: "webhook delivery dead-lettered", delivery_id: deliveryId }));
    message.ack();
  }
}
