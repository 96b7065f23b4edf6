import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { PageQuerySchema, pageSchema, toPage } from "../../lib/pagination.ts";
import { EMITTED_EVENTS } from "../../events/types.ts";
import { listEvents } from "../../storage/events.ts";
import type { EventRow } from "../../storage/rows.ts";

const EventSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Event identifier (`evt_…`), sent as `X-Event-Id`.", "Identifiant de l'événement (`evt_…`), envoyé comme `X-Event-Id`.") }),
    type: z.enum(EMITTED_EVENTS),
    mode: z.enum(["test", "live"]),
    data: z.record(z.string(), z.unknown()).openapi({ description: t("The fields sent after `event` in the webhook body.", "Les champs envoyés après `event` dans le corps du webhook.") }),
    created_at: z.string(),
  })
  .openapi("Event", { description: t("One entry of the organization's event log.", "Une entrée du journal des événements de l'organisation.") });

const route = apiRoute(
  { right: "read_proof", cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/events",
    operationId: "listEvents",
    tags: ["Events"],
    summary: t("List events", "Lister les événements"),
    description: t(
      "The event log of the key's mode, newest first: every event that was or would be sent to a webhook, `capture_session.rejected` included.",
      "Le journal des événements du mode de la clé, les plus récents d'abord : chaque événement envoyé ou qui serait envoyé à un webhook, `capture_session.rejected` compris.",
    ),
    request: {
      query: PageQuerySchema.extend({
        type: z.enum(EMITTED_EVENTS).optional().openapi({ param: { name: "type", in: "query" }, description: t("Only this type.", "Seulement ce type.") }),
      }),
    },
    responses: {
      200: { description: t("A page of events.", "Une page d'événements."), content: { "application/json": { schema: pageSchema(EventSchema, "EventList") } } },
    },
  },
);

const present = (row: EventRow) => ({ id: row.id, type: row.type as (typeof EMITTED_EVENTS)[number], mode: row.mode, data: row.data, created_at: row.createdAt });

export function registerListEvents(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const { limit, cursor, type } = c.req.valid("query");
    const rows = await listEvents(c.var.db, caller.organizationId, caller.mode, type, limit, cursor);
    return c.json(toPage(rows, limit, present), 200);
  });
}
