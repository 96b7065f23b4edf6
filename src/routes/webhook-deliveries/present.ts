import type { AttemptRow, DeliveryRow } from "../../storage/rows.ts";

/** A delivery as listed: never what was sent. */
export const presentDeliverySummary = (row: DeliveryRow) => ({
  id: row.id,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.nextAttemptAt,
  response_status: row.responseStatus,
  failure_reason: row.failureReason,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** A delivery read on its own: the exact body sent (until its retention ends) and every attempt. */
export function presentDelivery(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    ...presentDeliverySummary(row),
    request_body: row.bodyDeletedAt === null ? row.requestBody : null,
    response_body_start: row.responseBodyStart,
    body_deleted_at: row.bodyDeletedAt,
    attempts_log: attempts.map((a) => ({
      attempt: a.attempt,
      webhook_id: a.webhookId,
      started_at: a.startedAt,
      duration_ms: a.durationMs,
      response_status: a.responseStatus,
      failure_reason: a.failureReason,
    })),
  };
}
