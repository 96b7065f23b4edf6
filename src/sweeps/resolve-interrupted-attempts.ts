import type { WorkerContext } from "../domain/context.ts";
import { findInterruptedAttempts, resolveInterruptedAttempts } from "../storage/webhook-attempts.ts";
import { webhookRetryDelay } from "../webhooks/retry-schedule.ts";
import { ATTEMPT_TIMEOUT_MS, queueDeliveryRetries } from "../webhooks/attempt.ts";

/** Recorded as the attempt's failure: the request may have reached the endpoint, nobody saw its answer. */
export const INTERRUPTED_FAILURE =
  "interrupted: the Worker stopped during the attempt; the endpoint may have received it (the next attempt carries the same X-Event-Id)";

/** An attempt still started this long after it began outlived any Worker making it (its request times out after 10 s). */
export const INTERRUPTED_AFTER_MS = ATTEMPT_TIMEOUT_MS + 50_000;
/** Attempts resolved per run (each minute): two statements each, in one batch. */
const ATTEMPTS_PER_RUN = 50;

/**
 * Cron sweep (ADR 0050): an attempt recorded as started whose Worker died before completing it is recorded
 * as interrupted and counted as a failed attempt, so the delivery is retried on its schedule (or abandoned
 * once the schedule is spent). Whether the endpoint got the request is unknown: delivery is at least once,
 * and receivers de-duplicate on X-Event-Id.
 */
export async function resolveInterruptedDeliveryAttempts({ env, db }: WorkerContext, now: Date): Promise<number> {
  const interrupted = await findInterruptedAttempts(db.$client, new Date(now.getTime() - INTERRUPTED_AFTER_MS).toISOString(), ATTEMPTS_PER_RUN);
  const resolved = interrupted.map((attempt) => {
    const delay = webhookRetryDelay(env, attempt.attempt);
    return {
      attempt,
      delay,
      failureReason: INTERRUPTED_FAILURE,
      result: {
        status: delay === null ? ("abandoned" as const) : ("retrying" as const),
        failureReason: INTERRUPTED_FAILURE,
        nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000).toISOString(),
        updatedAt: now.toISOString(),
      },
    };
  });
  const movedOn = new Set(await resolveInterruptedAttempts(db, resolved));
  await queueDeliveryRetries(
    env,
    resolved.flatMap(({ attempt, delay }) =>
      delay !== null && movedOn.has(attempt.deliveryId) ? [{ deliveryId: attempt.deliveryId, delaySeconds: delay }] : [],
    ),
  );
  return interrupted.length;
}
