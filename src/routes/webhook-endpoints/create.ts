import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { apiContext } from "../../domain/context.ts";
import { createEndpoint } from "../../webhooks/endpoints.ts";
import { CreateEndpointBody, EndpointSchema } from "./schema.ts";

const route = apiRoute(
  {
    right: "manage_webhooks",
    cost: "write",
    errors: ["invalid_webhook_url", "webhook_url_already_registered", "webhook_endpoint_limit_reached", "service_unavailable"],
  },
  {
    method: "post",
    path: "/v1/webhook-endpoints",
    operationId: "createWebhookEndpoint",
    tags: ["Webhooks"],
    summary: t("Create a webhook endpoint", "Créer un point de terminaison de webhook"),
    description: t(
      "Creates an endpoint in the key's mode; the answer shows its signing secret once. At most 10 endpoints per mode: the eleventh is 409 `webhook_endpoint_limit_reached`, a deviation from the specification, which lists 401, 403, 422, 429 and 503 for this route (the request is valid; the endpoints already there conflict with it).",
      "Crée un point de terminaison dans le mode de la clé ; la réponse montre une seule fois son secret de signature. Au plus 10 points par mode : le onzième donne 409 `webhook_endpoint_limit_reached`, un écart par rapport à la spécification, qui indique 401, 403, 422, 429 et 503 pour cette route (la requête est valide ; ce sont les points déjà présents qui entrent en conflit avec elle).",
    ),
    request: { body: jsonBody(CreateEndpointBody) },
    responses: {
      201: {
        description: t("The endpoint, with its secret.", "Le point de terminaison, avec son secret."),
        content: { "application/json": { schema: EndpointSchema } },
      },
    },
  },
);

export function registerCreateEndpoint(app: App) {
  app.openapi(route, async (c) => c.json(await createEndpoint({ ctx: apiContext(c), input: c.req.valid("json") }), 201));
}
