import type { Env } from "../env.ts";

/** A pending proof untouched this long lost its queue message (e.g. the Worker died after completion). */
const STALLED_AFTER_MS = 5 * 60_000;

/** Sends stalled pending proofs to the sealing queue again; sealing is idempotent per proof. */
export async function resumeStalledSealing(env: Env, now: Date): Promise<number> {
  const stalled = await env.DB.prepare("SELECT id FROM proofs WHERE status = 'pending' AND updated_at <= ? LIMIT 100")
    .bind(new Date(now.getTime() - STALLED_AFTER_MS).toISOString())
    .all<{ id: string }>();
  if (stalled.results.length === 0) return 0;
  await env.SEALING_QUEUE.sendBatch(stalled.results.map((row) => ({ body: { proof_id: row.id } })));
  await env.DB.prepare(`UPDATE proofs SET updated_at = ? WHERE id IN (${stalled.results.map(() => "?").join(",")})`)
    .bind(now.toISOString(), ...stalled.results.map((row) => row.id))
    .run();
  return stalled.results.length;
}
