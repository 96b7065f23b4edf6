import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { deleteEndpoint } from "../../storage/webhooks.ts";
import { endpointOrThrow } from "../../webhooks/endpoints.ts";
import { EndpointIdParams } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found"] },
  {
    method: "delete",
    path: "/v1/webhook-endpoints/{id}",
    operationId: "deleteWebhookEndpoint",
    tags: ["Webhooks"],
    summary: t("Delete a webhook endpoint", "Supprimer un point de terminaison"),
    description: t("Deletes the endpoint; its pending deliveries stop.", "Supprime le point de terminaison ; ses livraisons en attente s'arrêtent."),
    request: { params: EndpointIdParams },
    responses: { 204: { description: t("Deleted.", "Supprimé.") } },
  },
);

export function registerDeleteEndpoint(app: App) {
  app.openapi(route, async (c) => {
    const ctx = apiContext(c);
    const endpoint = await endpointOrThrow({ ctx, input: c.req.valid("param") });
    await deleteEndpoint(ctx.db, endpoint.id);
    return c.body(null, 204);
  });
}
