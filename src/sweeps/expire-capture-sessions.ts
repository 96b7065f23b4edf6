import type { WorkerContext } from "../domain/context.ts";
import { expireOpenSessions } from "../storage/session-expiry.ts";

/**
 * Marks open sessions past their expiry as `expired` and releases their live reservation.
 * `capture_session.expired` is reserved for a later version and is not recorded.
 */
export async function expireCaptureSessions({ db }: WorkerContext, now: Date): Promise<number> {
  return expireOpenSessions(db.$client, now.toISOString());
}
