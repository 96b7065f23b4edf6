import type { WorkerContext } from "../domain/context.ts";
import { SEAL_TIMEOUT_MS } from "../sealing/sealer-client.ts";
import { SEALING_RETRY_DELAYS_SECONDS, sealingRetryDelay } from "../sealing/retry-schedule.ts";
import { sendInBatches } from "../lib/batches.ts";
import { claimStalledProofs } from "../storage/stalled-proofs.ts";

const MARGIN_MS = 60_000;

/**
 * When a pending proof should have been touched again at the latest: its last attempt (or its creation),
 * plus the retry delay that attempt was given, plus the time an attempt may take. Past that, its queue
 * message was lost (e.g. the Worker died after completion). Earlier, it is only waiting or being sealed.
 */
export function stalledAfterMs(sealAttempts: number): number {
  const delaySeconds = sealAttempts === 0 ? 0 : (sealingRetryDelay(sealAttempts) ?? 0);
  return delaySeconds * 1000 + SEAL_TIMEOUT_MS + MARGIN_MS;
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
 * Sends stalled pending proofs to the sealing queue again; sealing is idempotent per proof. The proofs are
 * claimed first, in one statement (touching `updated_at`, so neither a concurrent sweep nor the next run
 * takes them again before their next expected attempt), then sent: a failure to send leaves them to a run
 * after that delay, never to every minute's run.
 */
export async function resumeStalledSealing({ env }: WorkerContext, now: Date): Promise<number> {
  const ids = await claimStalledProofs(env.DB, now.toISOString(), stalledCutoffs(now), PROOFS_PER_RUN);
  await sendInBatches(
    env.SEALING_QUEUE,
    ids.map((id) => ({ proof_id: id })),
  );
  return ids.length;
}
