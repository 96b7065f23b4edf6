import type { WorkerContext } from "../domain/context.ts";
import { makeDueNow } from "../storage/webhook-attempts.ts";
import { deliveryMessage } from "./attempt.ts";

/**
 * A manual retry makes sense for an abandoned delivery, or one waiting for its next retry. A pending one
 * is already queued (a second message would send it twice at once) and a succeeded one was received.
 */
export const RETRYABLE_DELIVERY_STATUSES = ["abandoned", "retrying"] as const;

/**
 * Sends an abandoned or failing delivery again now (the delivery log's retry). Conditional on its status,
 * so that two concurrent retries queue it once; false when it was not in a retryable status.
 */
export async function retryDeliveryNow({ env, db }: WorkerContext, deliveryId: string, now = new Date()): Promise<boolean> {
  if (!(await makeDueNow(db, deliveryId, RETRYABLE_DELIVERY_STATUSES, now))) return false;
  await env.WEBHOOK_QUEUE.send(deliveryMessage(deliveryId));
  return true;
}
