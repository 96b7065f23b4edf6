/**
 * Claims, in one statement, up to `limit` pending proofs last touched at or before the cut-off of their
 * attempt count (`byAttempts[n]` for `seal_attempts = n`, `beyond` past the list), oldest first, touching
 * their `updated_at` so that no other run takes them before their next expected attempt. The cut-offs are
 * bound as parameters (about ten, within D1's 100).
 */
export async function claimStalledProofs(
  d1: D1Database,
  now: string,
  cutoffs: { byAttempts: readonly string[]; beyond: string },
  limit: number,
): Promise<string[]> {
  const branches = cutoffs.byAttempts.map((_, attempts) => `WHEN ${attempts} THEN ?`).join(" ");
  const claimed = await d1
    .prepare(
      `UPDATE proofs SET updated_at = ? WHERE id IN (SELECT id FROM proofs WHERE status = 'pending' AND updated_at <= CASE seal_attempts ${branches} ELSE ? END ORDER BY updated_at LIMIT ${limit}) RETURNING id`,
    )
    .bind(now, ...cutoffs.byAttempts, cutoffs.beyond)
    .all<{ id: string }>();
  return claimed.results.map((row) => row.id);
}
