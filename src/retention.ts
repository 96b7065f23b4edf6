/**
 * Every retention period of the service, in one place (README "Retention", ADR 0010). The cron sweeps
 * in src/sweeps/ apply them; nothing else deletes data on a timer.
 */
export const RETENTION_DAYS = {
  /**
   * A capture session that never became a proof (expired, or rejected because its "before" was taken):
   * its row, its files' rows, the uploaded objects in R2 and any unfinished multipart upload are deleted
   * this long after its link expired. Long enough for an integrator to look at why a capture was lost.
   */
  unusedCaptureSession: 30,
  /**
   * A webhook delivery's bodies (the exact body sent, the start of each answer) are emptied this long
   * after the delivery was created: Stripe's window for replaying events. The delivery's status,
   * attempts and failure reasons stay.
   */
  webhookDeliveryBody: 30,
  /**
   * Events and finished webhook deliveries with their attempts leave D1 for an R2 archive once the UTC day
   * they were created in is this old (docs/adr/0067): nothing is deleted, the routes read them there.
   */
  eventsInD1: 30,
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The ISO instant before which data under a retention period of `days` is due. */
export function retentionCutoff(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString();
}
