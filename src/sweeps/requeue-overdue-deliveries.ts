import type { WorkerContext } from "../domain/context.ts";
import { claimOverdueDeliveries } from "../storage/webhook-publishing.ts";
import { queueDeliveries } from "../webhooks/attempt.ts";

/**
 * How late past its due time a delivery must be before its message counts as lost. With the sweep every
 * minute, a lost message is sent again within two minutes of its due time (ADR 0050). A message that is
 * only late (a queue backlog) may then arrive twice: the consumer sends nothing for an attempt already in
 * flight or not yet due, and receivers de-duplicate on X-Event-Id (delivery is at least once).
 */
export const OVERDUE_AFTER_MS = 60_000;
/** Deliveries re-queued per run (each minute): a larger backlog drains over the following runs. */
const DELIVERIES_PER_RUN = 500;

/**
 * Cron sweep: webhook deliveries still to be attempted whose message vanished (dropped by the queue,
 * dead-lettered, lost with a Worker that died before queueing a retry) are queued again.
 */
export async function requeueOverdueDeliveries({ env, db }: WorkerContext, now: Date): Promise<number> {
  const ids = await claimOverdueDeliveries(db.$client, new Date(now.getTime() - OVERDUE_AFTER_MS), now, DELIVERIES_PER_RUN);
  await queueDeliveries(env, ids);
  return ids.length;
}
