import { sql } from "drizzle-orm";
import { statement } from "./statement.ts";

/**
 * Marks open sessions past their expiry as `expired` and releases their live reservation, in one
 * statement; returns how many.
 */
export async function expireOpenSessions(d1: D1Database, now: string): Promise<number> {
  const result = await statement(
    d1,
    sql`UPDATE capture_sessions SET status = 'expired', holds_reservation = 0, updated_at = ${now} WHERE status = 'open' AND expires_at <= ${now}`,
  ).run();
  return result.meta.changes;
}
