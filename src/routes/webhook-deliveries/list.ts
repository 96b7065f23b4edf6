import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { pageSchema, callerCursorScope, readCursor, toPage } from "../../lib/pagination.ts";
import { listDeliveries } from "../../storage/webhook-deliveries.ts";
import { presentDeliverySummary } from "./present.ts";
import { DeliveryListQuery, DeliverySummarySchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: ["invalid_cursor"] },
  {
    method: "get",
    path: "/v1/webhook-deliveries",
    operationId: "listWebhookDeliveries",
    tags: ["Webhooks"],
    summary: t("List webhook deliveries", "Lister les livraisons de webhooks"),
    description: t(
      "The delivery log of the key's mode, newest first; never the sent content.",
      "Le journal des livraisons du mode de la clé, les plus récentes d'abord ; jamais le contenu envoyé.",
    ),
    request: { query: DeliveryListQuery },
    responses: {
      200: {
        description: t("A page of deliveries.", "Une page de livraisons."),
        content: { "application/json": { schema: pageSchema(DeliverySummarySchema, "WebhookDeliveryList") } },
      },
    },
  },
);

export function registerListDeliveries(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const { limit, cursor, endpoint_id, status, event } = c.req.valid("query");
    const scope = callerCursorScope(c, "webhook-deliveries");
    const rows = await listDeliveries(
      c.var.db,
      c.env,
      caller.organizationId,
      caller.mode,
      { endpointId: endpoint_id, status, event },
      limit,
      await readCursor(scope, cursor),
    );
    return c.json(await toPage(scope, rows, limit, presentDeliverySummary), 200);
  });
}
