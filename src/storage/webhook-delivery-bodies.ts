import { sql } from "drizzle-orm";
import { statement } from "./statement.ts";

/**
 * Empties the bodies of finished webhook deliveries created before `cutoff`: the sent body becomes ''
 * (a sent body is never empty JSON), the start of the answer NULL on the delivery and on each attempt,
 * and body_deleted_at records when. At most `limit` deliveries, oldest first, in one atomic batch whose
 * two statements select the same deliveries. Returns how many deliveries were emptied.
 */
export async function deleteOldDeliveryBodies(d1: D1Database, cutoff: string, now: string, limit: number): Promise<number> {
  const due = sql`SELECT id FROM webhook_deliveries
    WHERE body_deleted_at IS NULL AND created_at < ${cutoff} AND status IN ('succeeded', 'abandoned')
    ORDER BY created_at LIMIT ${limit}`;
  const [, deliveries] = await d1.batch([
    statement(d1, sql`UPDATE webhook_attempts SET response_body_start = NULL WHERE delivery_id IN (${due})`),
    statement(d1, sql`UPDATE webhook_deliveries SET request_body = '', response_body_start = NULL, body_deleted_at = ${now} WHERE id IN (${due})`),
  ]);
  return deliveries!.meta.changes;
}
