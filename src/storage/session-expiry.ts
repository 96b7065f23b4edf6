/**
 * Marks open sessions past their expiry as `expired` and releases their live reservation, in one
 * statement; returns how many.
 */
export async function expireOpenSessions(d1: D1Database, now: string): Promise<number> {
  const result = await d1
    .prepare("UPDATE capture_sessions SET status = 'expired', holds_reservation = 0, updated_at = ?1 WHERE status = 'open' AND expires_at <= ?1")
    .bind(now)
    .run();
  return result.meta.changes;
}
