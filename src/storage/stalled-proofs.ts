import { sql } from "drizzle-orm";
import { statement } from "./statement.ts";

/**
 * Claims, in one statement, up to `limit` pending proofs last touched at or before the cut-off of their
 * attempt count (`byAttempts[n]` for `seal_attempts = n`, `beyond` past the list), oldest first, setting
 * their `updated_at` to `claimedUntil` so that no other run takes them before then. The cut-offs are
 * bound as parameters (about ten, within D1's 100).
 */
export async function claimStalledProofs(
  d1: D1Database,
  claimedUntil: string,
  cutoffs: { byAttempts: readonly string[]; beyond: string },
  limit: number,
): Promise<string[]> {
  const branches = sql.join(
    cutoffs.byAttempts.map((cutoff, attempts) => sql`WHEN ${sql.raw(String(attempts))} THEN ${cutoff}`),
    sql` `,
  );
  const claimed = await statement(
    d1,
    sql`UPDATE proofs SET updated_at = ${claimedUntil} WHERE id IN (SELECT id FROM proofs WHERE status = 'pending' AND updated_at <= CASE seal_attempts ${branches} ELSE ${cutoffs.beyond} END ORDER BY updated_at LIMIT ${sql.raw(String(limit))}) RETURNING id`,
  ).all<{ id: string }>();
  return claimed.results.map((row) => row.id);
}
