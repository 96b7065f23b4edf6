import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { apiContext } from "../../domain/context.ts";
import { updateEndpoint } from "../../webhooks/endpoints.ts";
import { EndpointIdParams, EndpointSchema, UpdateEndpointBody } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found", "invalid_webhook_url", "webhook_url_already_registered"] },
  {
    method: "patch",
    path: "/v1/webhook-endpoints/{id}",
    operationId: "updateWebhookEndpoint",
    tags: ["Webhooks"],
    summary: t("Update a webhook endpoint", "Modifier un point de terminaison"),
    description: t(
      "Changes the URL, events, description (null removes it) or status; a disabled endpoint receives nothing.",
      "Modifie l'URL, les événements, la description (null la retire) ou le statut ; un point désactivé ne reçoit rien.",
    ),
    request: { params: EndpointIdParams, body: jsonBody(UpdateEndpointBody) },
    responses: { 200: { description: t("The endpoint.", "Le point de terminaison."), content: { "application/json": { schema: EndpointSchema } } } },
  },
);

export function registerUpdateEndpoint(app: App) {
  app.openapi(route, async (c) =>
    c.json(await updateEndpoint({ ctx: apiContext(c), input: { id: c.req.valid("param").id, changes: c.req.valid("json") } }), 200),
  );
}
