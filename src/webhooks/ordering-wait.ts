import type { Database } from "../db/client.ts";
import { captureSessionCompleted, proofSealed } from "../events/catalogue.ts";
import { deliveryStillDue } from "../storage/webhook-attempts.ts";
import type { DeliveryRow } from "../storage/rows.ts";

/** How soon a proof.sealed delivery looks again while its capture_session.completed is still on its way. */
const ORDERING_WAIT_SECONDS = 5;
/** The longest delay Cloudflare Queues accepts for a message. */
const MAX_QUEUE_DELAY_SECONDS = 43_200;

/**
 * How long a `proof.sealed` delivery must wait for the same capture's `capture_session.completed` to the
 * same endpoint (delivered first): until that one's next attempt, plus a moment; null when none is due.
 */
export async function orderingWaitSeconds(db: Database, delivery: DeliveryRow, now: Date): Promise<number | null> {
  if (delivery.event !== proofSealed.type || delivery.sessionId === null) return null;
  const earlier = await deliveryStillDue(db, delivery.endpointId, delivery.sessionId, captureSessionCompleted.type);
  if (earlier === undefined) return null;
  const untilNext = earlier.nextAttemptAt === null ? 0 : Math.ceil((Date.parse(earlier.nextAttemptAt) - now.getTime()) / 1000);
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(ORDERING_WAIT_SECONDS, untilNext + ORDERING_WAIT_SECONDS));
}
