import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { PageQuerySchema } from "../../lib/pagination.ts";
import { EMITTED_EVENTS } from "../../events/types.ts";

export const EventSchema = z
  .strictObject({
    id: z
      .string()
      .openapi({ description: t("Event identifier (`evt_…`), sent as `X-Event-Id`.", "Identifiant de l'événement (`evt_…`), envoyé comme `X-Event-Id`.") }),
    type: z.enum(EMITTED_EVENTS),
    mode: z.enum(["test", "live"]),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: t("The fields sent after `event` in the webhook body.", "Les champs envoyés après `event` dans le corps du webhook.") }),
    created_at: z.string(),
  })
  .openapi("Event", { description: t("One entry of the organization's event log.", "Une entrée du journal des événements de l'organisation.") });

export const EventListQuery = PageQuerySchema.extend({
  type: z
    .enum(EMITTED_EVENTS)
    .optional()
    .openapi({ param: { name: "type", in: "query" }, description: t("Only this type.", "Seulement ce type.") }),
});
