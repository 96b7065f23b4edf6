import type { WorkerContext } from "../domain/context.ts";
import { undispatchedEventIds } from "../storage/webhook-publishing.ts";
import { publishEvents } from "../webhooks/publish-events.ts";

/** How long a recorded event may wait for the publication that follows its batch before the sweep takes it. */
const UNPUBLISHED_AFTER_MS = 30_000;
/** Events the sweep hands over per run (each minute): a backlog drains over the following runs. */
const SWEEP_EVENTS_PER_RUN = 200;

/** Cron sweep: events older than 30 s that nobody published (a Worker died between commit and publish), oldest first. */
export async function publishUndispatchedEvents(worker: WorkerContext, now: Date): Promise<void> {
  const stale = await undispatchedEventIds(worker.db, new Date(now.getTime() - UNPUBLISHED_AFTER_MS), SWEEP_EVENTS_PER_RUN);
  await publishEvents(worker, stale, now);
}
