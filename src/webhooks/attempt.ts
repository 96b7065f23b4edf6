import type { WorkerContext } from "../domain/context.ts";
import { newId } from "../lib/ids.ts";
import { setNextAttempt } from "../storage/webhook-publishing.ts";
import { isActiveSecret, secretsOf } from "../storage/webhooks.ts";
import { abandonDelivery, findDelivery, findEndpointById, recordAttempt } from "../storage/webhook-attempts.ts";
import { decryptSecret } from "./secrets.ts";
import { webhookRetryDelay } from "./retry-schedule.ts";
import { orderingWaitSeconds } from "./ordering-wait.ts";
import { sendDeliveryRequest } from "./send-request.ts";

export type AttemptOutcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

/**
 * One attempt of one delivery: signed with every active secret, 10-second timeout, redirects not
 * followed; every attempt is recorded. A non-2xx answer or a network error schedules the next retry,
 * until the fifth retry fails and the delivery is abandoned. Deleted or disabled endpoints receive
 * nothing: the delivery is abandoned with that reason (re-enabling does not replay it; use retry).
 */
export async function attemptDelivery({ env, db }: WorkerContext, deliveryId: string, now = new Date()): Promise<AttemptOutcome> {
  const delivery = await findDelivery(db, deliveryId);
  if (!delivery || delivery.status === "succeeded" || delivery.status === "abandoned") return { kind: "done" };
  const endpoint = await findEndpointById(db, delivery.endpointId);
  if (endpoint?.status !== "active") {
    await abandonDelivery(db, delivery.id, endpoint ? "endpoint_disabled" : "endpoint_deleted", now);
    return { kind: "done" };
  }
  const wait = await orderingWaitSeconds(db, delivery, now);
  if (wait !== null) {
    // Its next look is due then: until that time the overdue-delivery sweep must not count it as lost.
    await setNextAttempt(db, delivery.id, new Date(now.getTime() + wait * 1000));
    return { kind: "retry", delaySeconds: wait };
  }

  const secrets = ((await secretsOf(db, [endpoint.id])).get(endpoint.id) ?? []).filter((secret) => isActiveSecret(secret, now));
  const clear = await Promise.all(secrets.map((secret) => decryptSecret(env.WEBHOOK_SECRET_KEY, secret)));
  const sent = await sendDeliveryRequest(env, endpoint.url, delivery.requestBody, delivery.eventId, clear, now);
  const attempt = delivery.attempts + 1;
  const delay = sent.failure === null ? null : webhookRetryDelay(env, attempt);
  await recordAttempt(
    db,
    delivery,
    {
      id: newId("wat"),
      deliveryId: delivery.id,
      attempt,
      webhookId: sent.webhookId,
      startedAt: now.toISOString(),
      durationMs: sent.durationMs,
      responseStatus: sent.responseStatus,
      responseBodyStart: sent.responseBodyStart,
      failureReason: sent.failure,
    },
    {
      status: sent.failure === null ? "succeeded" : delay === null ? "abandoned" : "retrying",
      responseStatus: sent.responseStatus,
      responseBodyStart: sent.responseBodyStart,
      failureReason: sent.failure,
      nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay * 1000).toISOString(),
      updatedAt: now.toISOString(),
    },
  );
  return delay === null ? { kind: "done" } : { kind: "retry", delaySeconds: delay };
}
