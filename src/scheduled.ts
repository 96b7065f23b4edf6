import type { Env } from "./env.ts";
import type { WorkerContext } from "./domain/context.ts";
import type { ShardOfMessage } from "./domain/shard-messages.ts";
import { shardCodes, type ShardCode } from "./db/shards.ts";
import { sendInBatches } from "./lib/batches.ts";
import { expireCaptureSessions } from "./sweeps/expire-capture-sessions.ts";
import { resumeStalledSealing } from "./sweeps/resume-stalled-sealing.ts";
import { publishUndispatchedEvents } from "./sweeps/publish-undispatched-events.ts";
import { deleteUnusedCaptureSessions } from "./sweeps/delete-unused-capture-sessions.ts";
import { deleteWebhookDeliveryBodies } from "./sweeps/delete-webhook-delivery-bodies.ts";
import { archiveEventsAndDeliveries } from "./sweeps/archive-events-and-deliveries.ts";
import { deleteExpiredSessionCreations } from "./sweeps/delete-expired-session-creations.ts";
import { requeueOverdueDeliveries } from "./sweeps/requeue-overdue-deliveries.ts";
import { resolveInterruptedDeliveryAttempts } from "./sweeps/resolve-interrupted-attempts.ts";
import { renewEvidenceRecords } from "./sweeps/renew-evidence-records.ts";
import { rehashSealedObjects } from "./sweeps/rehash-sealed-objects.ts";
import { makeMissingReports } from "./sweeps/make-missing-reports.ts";
import { moveFingerprintsToIndex } from "./sweeps/move-fingerprints-to-index.ts";

/**
 * A periodic job run on each shard after the cron trigger (every minute); each must be safe to run twice or concurrently. What it
 * answers (a count, a run's report) is for its tests: the cron run ignores it. A third parameter, where a sweep has
 * one, is optional and left to its default here (a test passes its own budget or timestamper).
 */
export type Sweep = (worker: WorkerContext, now: Date) => Promise<unknown>;

/** The sweeps, in the order they run. Each resource adds its own here. */
const SWEEPS: ReadonlyArray<{ name: string; run: Sweep }> = [
  { name: "expire-capture-sessions", run: expireCaptureSessions },
  { name: "resume-stalled-sealing", run: resumeStalledSealing },
  { name: "publish-undispatched-events", run: publishUndispatchedEvents },
  // Retention (src/retention.ts): data past its period is deleted a little every minute.
  { name: "delete-unused-capture-sessions", run: deleteUnusedCaptureSessions },
  { name: "delete-webhook-delivery-bodies", run: deleteWebhookDeliveryBodies },
  { name: "archive-events-and-deliveries", run: archiveEventsAndDeliveries },
  // A creation's attempt recorded with its session, kept as long as its Idempotency-Key (docs/adr/0046).
  { name: "delete-expired-session-creations", run: deleteExpiredSessionCreations },
  // Lost work found again within two minutes (docs/adr/0050): attempts cut short, then lost messages.
  { name: "resolve-interrupted-attempts", run: resolveInterruptedDeliveryAttempts },
  { name: "requeue-overdue-deliveries", run: requeueOverdueDeliveries },
  // RFC 4998 evidence records: archive timestamps over batches of sealed proofs (docs/adr/0022).
  { name: "renew-evidence-records", run: renewEvidenceRecords },
  // The public verdict rests on the stored objects as they are: a bounded re-hash each minute (docs/adr/0037).
  { name: "rehash-sealed-objects", run: rehashSealedObjects },
  // PDF reports the queue did not make (docs/adr/0044).
  { name: "make-missing-reports", run: makeMissingReports },
  // The prints sealed into D1 before the similarity index, moved into it a little every minute (docs/adr/0064).
  { name: "move-fingerprints-to-index", run: moveFingerprintsToIndex },
];

/** The sweeps queue's message: the shard whose round it is. */
export interface SweepMessage {
  shard: ShardCode;
}

export const shardOfSweepMessage: ShardOfMessage = (body) =>
  typeof body === "object" && body !== null && typeof (body as SweepMessage).shard === "string" ? (body as SweepMessage).shard : null;

/**
 * The cron trigger's work: one message per shard on the sweeps queue (docs/adr/0055, 0062), so each shard's
 * round runs in a queue invocation of its own, with its own 1,000 queries, however many shards there are.
 */
export async function scheduleSweeps(env: Env): Promise<void> {
  await sendInBatches(
    env.SWEEPS_QUEUE,
    shardCodes(env).map((shard) => ({ shard }) satisfies SweepMessage),
  );
}

/**
 * Consumer of the sweeps queue, for one shard's messages: one round of the sweeps on that shard (several
 * messages of it in a batch, a backlog, make one round), then every message acknowledged: a sweep that
 * failed is tried again by the next minute's round, never by a retried message piling up behind it.
 */
export async function consumeSweepMessages(messages: readonly Message<unknown>[], worker: WorkerContext, now = new Date()): Promise<void> {
  await runSweeps(worker, now);
  for (const message of messages) message.ack();
}

/** One round of every sweep on the shard of `worker`. */
export async function runSweeps(worker: WorkerContext, now: Date): Promise<void> {
  for (const sweep of SWEEPS) {
    try {
      await sweep.run(worker, now);
    } catch (error) {
      // One failing sweep must not stop the others; the next minute retries it.
      console.error(JSON.stringify({ level: "error", sweep: sweep.name, message: (error as Error).message }));
    }
  }
}
