import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { secretsOf } from "../../storage/webhooks.ts";
import { endpointOrThrow } from "../../webhooks/endpoints.ts";
import { presentEndpoint } from "../../webhooks/present.ts";
import { EndpointIdParams, EndpointSchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: ["webhook_endpoint_not_found"] },
  {
    method: "get",
    path: "/v1/webhook-endpoints/{id}",
    operationId: "getWebhookEndpoint",
    tags: ["Webhooks"],
    summary: t("Get a webhook endpoint", "Lire un point de terminaison"),
    description: t("One endpoint, without its secret value.", "Un point de terminaison, sans la valeur de son secret."),
    request: { params: EndpointIdParams },
    responses: { 200: { description: t("The endpoint.", "Le point de terminaison."), content: { "application/json": { schema: EndpointSchema } } } },
  },
);

export function registerGetEndpoint(app: App) {
  app.openapi(route, async (c) => {
    const ctx = apiContext(c);
    const endpoint = await endpointOrThrow({ ctx, input: c.req.valid("param") });
    return c.json(presentEndpoint(endpoint, (await secretsOf(ctx.db, [endpoint.id])).get(endpoint.id) ?? [], ctx.now), 200);
  });
}
