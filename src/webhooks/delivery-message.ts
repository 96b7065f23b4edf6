import type { Env } from "../env.ts";
import { sendInBatches } from "../lib/batches.ts";

/** A webhook queue message: the delivery's id only; the body and its state are read from the delivery log. */
export interface DeliveryMessage {
  delivery_id: string;
}

export const deliveryMessage = (deliveryId: string): DeliveryMessage => ({ delivery_id: deliveryId });

/** Queues deliveries in as many `sendBatch` calls as Queues' limits (100 messages, 256 KB) require. */
export async function queueDeliveries(env: Env, deliveryIds: readonly string[]): Promise<void> {
  await sendInBatches(env.WEBHOOK_QUEUE, deliveryIds.map(deliveryMessage));
}
