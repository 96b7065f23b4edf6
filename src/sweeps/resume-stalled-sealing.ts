import type { WorkerContext } from "../domain/context.ts";
import { SEALING_PROGRESS_EVERY_MS } from "../sealing/seal-proof.ts";
import { SEALING_RETRY_DELAYS_SECONDS, sealingRetryDelay } from "../sealing/retry-schedule.ts";
import { sendInBatches } from "../lib/batches.ts";
import { claimStalledProofs } from "../storage/stalled-proofs.ts";

/** Silence after which a proof counts as stalled: three progress marks missed. */
const SILENCE_MS = 3 * SEALING_PROGRESS_EVERY_MS;

/**
 * When a pending proof should have shown progress again at the latest: its last progress (its completion,
 * the start of an attempt, or the marks an attempt leaves while the sealer works, src/sealing/seal-proof.ts),
 * plus the retry delay its last attempt was given, plus three missed marks. Past that, its queue message
 * was lost or its Worker died mid-attempt; with the sweep every minute it is sent to the sealer again within
 * two minutes of its last progress (ADR 0050). Earlier, it is only waiting or being sealed.
 */
export function stalledAfterMs(sealAttempts: number): number {
  const delaySeconds = sealAttempts === 0 ? 0 : (sealingRetryDelay(sealAttempts) ?? 0);
  return delaySeconds * 1000 + SILENCE_MS;
}

/** Proofs claimed per run (each minute): a larger backlog drains over the following runs. */
const PROOFS_PER_RUN = 100;

/**
 * The latest `updated_at` at which a pending proof with `seal_attempts = n` counts as stalled: one cut-off
 * per attempt count of the retry schedule.
 */
function stalledCutoffs(now: Date): { byAttempts: string[]; beyond: string } {
  const cutoff = (attempts: number) => new Date(now.getTime() - stalledAfterMs(attempts)).toISOString();
  const attemptCounts = Array.from({ length: SEALING_RETRY_DELAYS_SECONDS.length + 1 }, (_, attempts) => attempts);
  // Past the schedule no retry is due any more: only the time an attempt may take.
  return { byAttempts: attemptCounts.map(cutoff), beyond: cutoff(0) };
}

/**
 * How long a proof sent again has to show progress before it counts as stalled once more. Its message may
 * be waiting behind a backlog in the queue: sending it every minute would only deepen the backlog with
 * copies (each would seal it again; only one seal is recorded).
 */
const RESENT_GRACE_MS = 3 * 60_000;

/**
 * Sends stalled pending proofs to the sealing queue again; sealing is idempotent per proof. The proofs are
 * claimed first, in one statement (setting `updated_at` to the end of their grace, so neither a concurrent
 * sweep nor the next runs take them again before it; the first progress mark of their seal replaces it),
 * then sent: a failure to send leaves them to a run after that grace, never to every minute's run.
 */
export async function resumeStalledSealing({ env, db }: WorkerContext, now: Date): Promise<number> {
  const ids = await claimStalledProofs(db.$client, new Date(now.getTime() + RESENT_GRACE_MS).toISOString(), stalledCutoffs(now), PROOFS_PER_RUN);
  await sendInBatches(
    env.SEALING_QUEUE,
    ids.map((id) => ({ proof_id: id })),
  );
  return ids.length;
}
