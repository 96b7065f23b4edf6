import type { WorkerContext } from "../domain/context.ts";
import { attemptDelivery } from "./attempt.ts";
import { deliveryMessage, type DeliveryMessage } from "./delivery-message.ts";

/**
 * Attempts each delivery. A later attempt is a new message sent with its delay, then the current one is
 * acknowledged: `message.retry` would count against the queue's `max_retries`, which a delivery waiting
 * for its capture's earlier event, or a long retry schedule, could exhaust, and the queue would then
 * drop the message and the delivery with it.
 */
export async function consumeWebhookMessages(
  messages: readonly Message<unknown>[],
  worker: WorkerContext,
  sendLater: (deliveryId: string, delaySeconds: number) => Promise<unknown> = (id, delaySeconds) => worker.env.WEBHOOK_QUEUE.send(deliveryMessage(id), { delaySeconds }),
): Promise<void> {
  for (const message of messages) {
    const { delivery_id: deliveryId } = message.body as DeliveryMessage;
    const outcome = await attemptDelivery(worker, deliveryId);
    if (outcome.kind === "retry") await sendLater(deliveryId, outcome.delaySeconds);
    message.ack();
  }
}
