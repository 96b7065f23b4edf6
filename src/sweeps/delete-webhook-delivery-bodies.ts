import type { WorkerContext } from "../domain/context.ts";
import { RETENTION_DAYS, retentionCutoff } from "../retention.ts";
import { deleteOldDeliveryBodies } from "../storage/webhook-delivery-bodies.ts";

export const DELIVERY_BODIES_PER_ROUND = 500;
const ROUNDS_PER_RUN = 10;

/**
 * Empties the bodies of webhook deliveries past their retention period (src/retention.ts). Only
 * finished deliveries (succeeded or abandoned): one still being retried keeps the body it must send.
 */
export async function deleteWebhookDeliveryBodies({ db }: WorkerContext, now: Date): Promise<number> {
  const cutoff = retentionCutoff(now, RETENTION_DAYS.webhookDeliveryBody);
  let emptied = 0;
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    const changed = await deleteOldDeliveryBodies(db.$client, cutoff, now.toISOString(), DELIVERY_BODIES_PER_ROUND);
    emptied += changed;
    if (changed < DELIVERY_BODIES_PER_ROUND) break;
  }
  return emptied;
}
