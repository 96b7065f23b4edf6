/**
 * Empties the bodies of finished webhook deliveries created before `cutoff`: the sent body becomes ''
 * (a sent body is never empty JSON), the start of the answer NULL on the delivery and on each attempt,
 * and body_deleted_at records when. At most `limit` deliveries, oldest first, in one atomic batch whose
 * two statements select the same deliveries. Returns how many deliveries were emptied.
 */
export async function deleteOldDeliveryBodies(d1: D1Database, cutoff: string, now: string, limit: number): Promise<number> {
  const due = `SELECT id FROM webhook_deliveries
    WHERE body_deleted_at IS NULL AND created_at < ?1 AND status IN ('succeeded', 'abandoned')
    ORDER BY created_at LIMIT ?2`;
  const [, deliveries] = await d1.batch([
    d1.prepare(`UPDATE webhook_attempts SET response_body_start = NULL WHERE delivery_id IN (${due})`).bind(cutoff, limit),
    d1
      .prepare(`UPDATE webhook_deliveries SET request_body = '', response_body_start = NULL, body_deleted_at = ?3 WHERE id IN (${due})`)
      .bind(cutoff, limit, now),
  ]);
  return deliveries!.meta.changes;
}
