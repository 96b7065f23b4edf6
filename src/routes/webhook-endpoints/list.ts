import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { listEndpoints, secretsOf } from "../../storage/webhooks.ts";
import { presentEndpoint } from "../../webhooks/present.ts";
import { EndpointListSchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/webhook-endpoints",
    operationId: "listWebhookEndpoints",
    tags: ["Webhooks"],
    summary: t("List webhook endpoints", "Lister les points de terminaison"),
    description: t(
      "The endpoints of the key's mode (at most 10), without secret values.",
      "Les points de terminaison du mode de la clé (10 au plus), sans valeur de secret.",
    ),
    responses: { 200: { description: t("The endpoints.", "Les points de terminaison."), content: { "application/json": { schema: EndpointListSchema } } } },
  },
);

export function registerListEndpoints(app: App) {
  app.openapi(route, async (c) => {
    const db = c.var.db;
    const caller = c.get("caller");
    const endpoints = await listEndpoints(db, caller.organizationId, caller.mode);
    const secrets = await secretsOf(
      db,
      endpoints.map((endpoint) => endpoint.id),
    );
    const now = new Date();
    return c.json({ data: endpoints.map((endpoint) => presentEndpoint(endpoint, secrets.get(endpoint.id) ?? [], now)) }, 200);
  });
}
