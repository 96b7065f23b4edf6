import type { Env } from "../env.ts";
import { SEAL_TIMEOUT_MS } from "../sealing/sealer-client.ts";
import { sealingRetryDelay } from "../sealing/retry-schedule.ts";

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

/** Sends stalled pending proofs to the sealing queue again; sealing is idempotent per proof. */
export async function resumeStalledSealing(env: Env, now: Date): Promise<number> {
  const candidates = await env.DB.prepare("SELECT id, seal_attempts, updated_at FROM proofs WHERE status = 'pending' AND updated_at <= ? ORDER BY updated_at LIMIT 100")
    .bind(new Date(now.getTime() - stalledAfterMs(0)).toISOString())
    .all<{ id: string; seal_attempts: number; updated_at: string }>();
  const stalled = candidates.results.filter((row) => Date.parse(row.updated_at) <= now.getTime() - stalledAfterMs(row.seal_attempts));
  if (stalled.length === 0) return 0;
  await env.SEALING_QUEUE.sendBatch(stalled.map((row) => ({ body: { proof_id: row.id } })));
  await env.DB.prepare(`UPDATE proofs SET updated_at = ? WHERE id IN (${stalled.map(() => "?").join(",")})`)
    .bind(now.toISOString(), ...stalled.map((row) => row.id))
    .run();
  return stalled.length;
}
