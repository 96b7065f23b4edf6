import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { apiContext } from "../../domain/context.ts";
import { takeRateLimit } from "../../durable/rate-limit-client.ts";
import { deliveryOrThrow } from "../../webhooks/deliveries.ts";
import { requireActiveEndpoint } from "../../webhooks/endpoints.ts";
import { findEndpoint } from "../../storage/webhooks.ts";
import { RETRYABLE_DELIVERY_STATUSES, retryDeliveryNow } from "../../webhooks/retry-now.ts";
import { presentDeliverySummary } from "./present.ts";
import { DeliveryIdParams, DeliverySummarySchema } from "./schema.ts";

/** Like test events: a manual retry reaches a third party, so one endpoint gets a bounded number. */
const MANUAL_RETRIES_PER_HOUR = 20;

const route = apiRoute(
  {
    right: "manage_webhooks",
    cost: "write",
    errors: [
      "webhook_delivery_not_found",
      "webhook_delivery_not_retryable",
      "webhook_delivery_body_deleted",
      "webhook_endpoint_disabled",
      "webhook_endpoint_deleted",
    ],
  },
  {
    method: "post",
    path: "/v1/webhook-deliveries/{id}/retry",
    operationId: "retryWebhookDelivery",
    tags: ["Webhooks"],
    summary: t("Send a delivery again", "Renvoyer une livraison"),
    description: t(
      "Sends an `abandoned` delivery, or a `retrying` one without waiting for its next retry, again now, with the same body and event id; a `pending` or `succeeded` one gives 409 `webhook_delivery_not_retryable`. At most 20 manual retries per endpoint per hour (429 `rate_limited` with `Retry-After`), so that retries cannot flood the receiver. A delivery whose endpoint is disabled gives 409 `webhook_endpoint_disabled` (enable the endpoint first), one whose endpoint was deleted 409 `webhook_endpoint_deleted`: nothing would be sent.",
      "Renvoie maintenant une livraison `abandoned`, ou une livraison `retrying` sans attendre sa prochaine tentative, avec le même corps et le même identifiant d'événement ; une livraison `pending` ou `succeeded` donne 409 `webhook_delivery_not_retryable`. Au plus 20 renvois manuels par point de terminaison et par heure (429 `rate_limited` avec `Retry-After`), afin que les renvois ne puissent pas inonder le destinataire. Une livraison dont le point de terminaison est désactivé donne 409 `webhook_endpoint_disabled` (réactivez d'abord le point), celle dont le point a été supprimé 409 `webhook_endpoint_deleted` : rien ne serait envoyé.",
    ),
    request: { params: DeliveryIdParams },
    responses: { 202: { description: t("Queued.", "Mise en file."), content: { "application/json": { schema: DeliverySummarySchema } } } },
  },
);

export function registerRetryDelivery(app: App) {
  app.openapi(route, async (c) => {
    const ctx = apiContext(c);
    const { delivery: row } = await deliveryOrThrow({ ctx, input: c.req.valid("param") });
    // A retry sends the exact body the receiver's signature check covers: once deleted, nothing faithful is left to send.
    if (row.bodyDeletedAt !== null) throw new ApiError("webhook_delivery_body_deleted");
    const notRetryable = () => new ApiError("webhook_delivery_not_retryable", { detail: `The delivery is ${row.status}.` });
    // Checked before the hourly budget is charged: a refused retry sends nothing.
    if (!(RETRYABLE_DELIVERY_STATUSES as readonly string[]).includes(row.status)) throw notRetryable();
    const endpoint = await findEndpoint(ctx.db, ctx.caller.organizationId, ctx.caller.mode, row.endpointId);
    if (endpoint === null) throw new ApiError("webhook_endpoint_deleted");
    requireActiveEndpoint(endpoint);
    const limit = await takeRateLimit(c.env.RATE_LIMIT_BUCKET, `delivery-retries:${row.endpointId}`, MANUAL_RETRIES_PER_HOUR, "read", 3_600_000);
    if (!limit.allowed) {
      throw new ApiError("rate_limited", {
        headers: { "Retry-After": String(limit.resetSeconds) },
        detail: `At most ${MANUAL_RETRIES_PER_HOUR} manual retries per endpoint per hour.`,
      });
    }
    if (!(await retryDeliveryNow(ctx, row.id))) throw notRetryable();
    return c.json(presentDeliverySummary((await deliveryOrThrow({ ctx, input: { id: row.id } })).delivery), 202);
  });
}
