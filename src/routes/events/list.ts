import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { pageSchema, callerCursorScope, readCursor, toPage } from "../../lib/pagination.ts";
import { listEvents } from "../../storage/events.ts";
import { keysetPageAcrossShards } from "../../storage/keyset-page.ts";
import { presentEvent } from "./present.ts";
import { EventListQuery, EventSchema } from "./schema.ts";

const route = apiRoute(
  { right: "read_proof", cost: "read", errors: ["invalid_cursor"] },
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
      query: EventListQuery,
    },
    responses: {
      200: { description: t("A page of events.", "Une page d'événements."), content: { "application/json": { schema: pageSchema(EventSchema, "EventList") } } },
    },
  },
);

export function registerListEvents(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const { limit, cursor, type } = c.req.valid("query");
    const scope = callerCursorScope(c, "events");
    const after = await readCursor(scope, cursor);
    const rows = await keysetPageAcrossShards(c.env, caller.shards, (db) => listEvents(db, c.env, caller.organizationId, caller.mode, type, limit, after));
    return c.json(await toPage(scope, rows, limit, presentEvent), 200);
  });
}
