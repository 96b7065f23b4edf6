import type { Env } from "../env.ts";

/**
 * Marks open sessions past their expiry as `expired` and releases their live reservation, in one
 * statement. `capture_session.expired` is reserved for a later version and is not recorded.
 */
export async function expireCaptureSessions(env: Env, now: Date): Promise<number> {
  const result = await env.DB.prepare(
    "UPDATE capture_sessions SET status = 'expired', holds_reservation = 0, updated_at = ?1 WHERE status = 'open' AND expires_at <= ?1",
  )
    .bind(now.toISOString())
    .run();
  return result.meta.changes;
}
