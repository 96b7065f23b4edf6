import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { PageQuerySchema } from "../../lib/pagination.ts";

export const DeliveryStatusSchema = z.enum(["pending", "succeeded", "retrying", "abandoned"]);

export const DeliverySummarySchema = z
  .strictObject({
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event: z.string(),
    status: DeliveryStatusSchema,
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    response_status: z.number().int().nullable(),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WebhookDeliverySummary", { description: t("A delivery, without what was sent.", "Une livraison, sans ce qui a été envoyé.") });

export const DeliverySchema = DeliverySummarySchema.extend({
  request_body: z
    .string()
    .nullable()
    .openapi({
      description: t(
        "The exact body sent, as the endpoint received it; null once deleted, 30 days after the delivery was created (see `body_deleted_at`).",
        "Le corps exact envoyé, tel que reçu par le point de terminaison ; null une fois supprimé, 30 jours après la création de la livraison (voir `body_deleted_at`).",
      ),
    }),
  response_body_start: z
    .string()
    .nullable()
    .openapi({
      description: t(
        "First KiB of the last answer (null once deleted, like the body).",
        "Premier Kio de la dernière réponse (null une fois supprimé, comme le corps).",
      ),
    }),
  body_deleted_at: z
    .string()
    .nullable()
    .openapi({
      description: t(
        "When the bodies were deleted (retention: 30 days, Stripe's window for events); null while they are kept.",
        "Date de suppression des corps (conservation : 30 jours, la fenêtre de Stripe pour les événements) ; null tant qu'ils sont conservés.",
      ),
    }),
  attempts_log: z.array(
    z.strictObject({
      attempt: z.number().int(),
      webhook_id: z.string(),
      started_at: z.string(),
      duration_ms: z.number().int(),
      response_status: z.number().int().nullable(),
      failure_reason: z.string().nullable(),
    }),
  ),
}).openapi("WebhookDelivery", { description: t("A delivery with its body and every attempt.", "Une livraison avec son corps et chaque tentative.") });

export const DeliveryIdParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Delivery identifier.", "Identifiant de la livraison.") }),
});

export const DeliveryListQuery = PageQuerySchema.extend({
  endpoint_id: z
    .string()
    .max(80)
    .optional()
    .openapi({ param: { name: "endpoint_id", in: "query" }, description: t("Only this endpoint.", "Seulement ce point de terminaison.") }),
  status: DeliveryStatusSchema.optional().openapi({
    param: { name: "status", in: "query" },
    description: t("Only this status, e.g. `abandoned`.", "Seulement ce statut, par ex. `abandoned`."),
  }),
  event: z
    .string()
    .max(60)
    .optional()
    .openapi({ param: { name: "event", in: "query" }, description: t("Only this event.", "Seulement cet événement.") }),
});
