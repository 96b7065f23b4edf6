import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { deliveryOrThrow } from "../../webhooks/deliveries.ts";
import { presentDelivery } from "./present.ts";
import { DeliveryIdParams, DeliverySchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: ["webhook_delivery_not_found"] },
  {
    method: "get",
    path: "/v1/webhook-deliveries/{id}",
    operationId: "getWebhookDelivery",
    tags: ["Webhooks"],
    summary: t("Get a webhook delivery", "Lire une livraison de webhook"),
    description: t(
      "The exact body sent, the last status and start of answer, the failure reason and every attempt.",
      "Le corps exact envoyé, le dernier statut et le début de réponse, la raison d'échec et chaque tentative.",
    ),
    request: { params: DeliveryIdParams },
    responses: { 200: { description: t("The delivery.", "La livraison."), content: { "application/json": { schema: DeliverySchema } } } },
  },
);

export function registerGetDelivery(app: App) {
  app.openapi(route, async (c) => {
    const ctx = apiContext(c);
    const { delivery, attempts } = await deliveryOrThrow({ ctx, input: c.req.valid("param") });
    return c.json(presentDelivery(delivery, attempts), 200);
  });
}
