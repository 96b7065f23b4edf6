import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { optionalBodyValue, optionalJsonBody } from "../../openapi/bodies.ts";
import { apiContext } from "../../domain/context.ts";
import { rotateSecret } from "../../webhooks/endpoints.ts";
import { EndpointIdParams, EndpointSchema, RotateBody } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found", "rotation_in_progress"] },
  {
    method: "post",
    path: "/v1/webhook-endpoints/{id}/rotate-secret",
    operationId: "rotateWebhookSecret",
    tags: ["Webhooks"],
    summary: t("Rotate the signing secret", "Renouveler le secret de signature"),
    description: t(
      "Creates a new secret, shown once; the old one keeps signing (one `v1` each) until `expires_in_seconds` from now.",
      "Crée un nouveau secret, montré une fois ; l'ancien signe encore (un `v1` chacun) jusqu'à `expires_in_seconds` à partir de maintenant.",
    ),
    request: { params: EndpointIdParams, body: optionalJsonBody(RotateBody) },
    responses: {
      200: {
        description: t("The endpoint, with its new secret.", "Le point de terminaison, avec son nouveau secret."),
        content: { "application/json": { schema: EndpointSchema } },
      },
    },
  },
);

export function registerRotateSecret(app: App) {
  app.openapi(route, async (c) => {
    const body = optionalBodyValue(RotateBody, c.req.valid("json"));
    return c.json(await rotateSecret({ ctx: apiContext(c), input: { id: c.req.valid("param").id, expiresInSeconds: body.expires_in_seconds } }), 200);
  });
}
