import { z } from "@hono/zod-openapi";
import type { Mode } from "../../auth/mode.ts";
import type { Database } from "../../db/client.ts";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { PageQuerySchema, pageSchema, toPage } from "../../lib/pagination.ts";
import type { DeliveryRow } from "../../storage/webhook-attempts.ts";
import { attemptsOf, findOwnDelivery, listDeliveries } from "../../storage/webhook-deliveries.ts";
import { RETRYABLE_DELIVERY_STATUSES, retryDeliveryNow } from "../../webhooks/retry-now.ts";
import { takeRateLimit } from "../../durable/rate-limit-client.ts";

/** Like test events: a manual retry reaches a third party, so one endpoint gets a bounded number. */
const MANUAL_RETRIES_PER_HOUR = 20;

const tags = ["Webhooks"];
const Status = z.enum(["pending", "succeeded", "retrying", "abandoned"]);

const DeliverySummary = z
  .strictObject({
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event: z.string(),
    status: Status,
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    response_status: z.number().int().nullable(),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WebhookDeliverySummary", { description: t("A delivery, without what was sent.", "Une livraison, sans ce qui a été envoyé.") });

const Delivery = DeliverySummary.extend({
  request_body: z.string().nullable().openapi({
    description: t(
      "The exact body sent, as the endpoint received it; null once deleted, 30 days after the delivery was created (see `body_deleted_at`).",
      "Le corps exact envoyé, tel que reçu par le point de terminaison ; null une fois supprimé, 30 jours après la création de la livraison (voir `body_deleted_at`).",
    ),
  }),
  response_body_start: z.string().nullable().openapi({ description: t("First KiB of the last answer (null once deleted, like the body).", "Premier Kio de la dernière réponse (null une fois supprimé, comme le corps).") }),
  body_deleted_at: z.string().nullable().openapi({
    description: t(
      "When the bodies were deleted (retention: 30 days, Stripe's window for events); null while they are kept.",
      "Date de suppression des corps (conservation : 30 jours, la fenêtre de Stripe pour les événements) ; null tant qu'ils sont conservés.",
    ),
  }),
  attempts_log: z.array(
    z.strictObject({ attempt: z.number().int(), webhook_id: z.string(), started_at: z.string(), duration_ms: z.number().int(), response_status: z.number().int().nullable(), failure_reason: z.string().nullable() }),
  ),
}).openapi("WebhookDelivery", { description: t("A delivery with its body and every attempt.", "Une livraison avec son corps et chaque tentative.") });

const IdParams = z.object({ id: z.string().max(80).openapi({ param: { name: "id", in: "path" }, description: t("Delivery identifier.", "Identifiant de la livraison.") }) });

const list = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: [] },
  {
    method: "get", path: "/v1/webhook-deliveries", operationId: "listWebhookDeliveries", tags,
    summary: t("List webhook deliveries", "Lister les livraisons de webhooks"),
    description: t("The delivery log of the key's mode, newest first; never the sent content.", "Le journal des livraisons du mode de la clé, les plus récentes d'abord ; jamais le contenu envoyé."),
    request: {
      query: PageQuerySchema.extend({
        endpoint_id: z.string().max(80).optional().openapi({ param: { name: "endpoint_id", in: "query" }, description: t("Only this endpoint.", "Seulement ce point de terminaison.") }),
        status: Status.optional().openapi({ param: { name: "status", in: "query" }, description: t("Only this status, e.g. `abandoned`.", "Seulement ce statut, par ex. `abandoned`.") }),
        event: z.string().max(60).optional().openapi({ param: { name: "event", in: "query" }, description: t("Only this event.", "Seulement cet événement.") }),
      }),
    },
    responses: { 200: { description: t("A page of deliveries.", "Une page de livraisons."), content: { "application/json": { schema: pageSchema(DeliverySummary, "WebhookDeliveryList") } } } },
  },
);

const get = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: ["webhook_delivery_not_found"] },
  {
    method: "get", path: "/v1/webhook-deliveries/{id}", operationId: "getWebhookDelivery", tags,
    summary: t("Get a webhook delivery", "Lire une livraison de webhook"),
    description: t("The exact body sent, the last status and start of answer, the failure reason and every attempt.", "Le corps exact envoyé, le dernier statut et le début de réponse, la raison d'échec et chaque tentative."),
    request: { params: IdParams },
    responses: { 200: { description: t("The delivery.", "La livraison."), content: { "application/json": { schema: Delivery } } } },
  },
);

const retry = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_delivery_not_found", "webhook_delivery_not_retryable", "webhook_delivery_body_deleted"] },
  {
    method: "post", path: "/v1/webhook-deliveries/{id}/retry", operationId: "retryWebhookDelivery", tags,
    summary: t("Send a delivery again", "Renvoyer une livraison"),
    description: t(
      "Sends an `abandoned` delivery, or a `retrying` one without waiting for its next retry, again now, with the same body and event id; a `pending` or `succeeded` one gives 409 `webhook_delivery_not_retryable`. At most 20 manual retries per endpoint per hour (429 `rate_limited` with `Retry-After`), so that retries cannot flood the receiver.",
      "Renvoie maintenant une livraison `abandoned`, ou une livraison `retrying` sans attendre sa prochaine tentative, avec le même corps et le même identifiant d'événement ; une livraison `pending` ou `succeeded` donne 409 `webhook_delivery_not_retryable`. Au plus 20 renvois manuels par point de terminaison et par heure (429 `rate_limited` avec `Retry-After`), afin que les renvois ne puissent pas inonder le destinataire.",
    ),
    request: { params: IdParams },
    responses: { 202: { description: t("Queued.", "Mise en file."), content: { "application/json": { schema: DeliverySummary } } } },
  },
);

const summary = (row: DeliveryRow) => ({
  id: row.id,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.nextAttemptAt,
  response_status: row.responseStatus,
  failure_reason: row.failureReason,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

export function registerWebhookDeliveryRoutes(app: App) {
  const find = async (db: Database, organizationId: string, mode: Mode, id: string) => {
    const row = await findOwnDelivery(db, organizationId, mode, id);
    if (row === null) throw new ApiError("webhook_delivery_not_found");
    return row;
  };

  app.openapi(list, async (c) => {
    const caller = c.get("caller");
    const { limit, cursor, endpoint_id, status, event } = c.req.valid("query");
    const rows = await listDeliveries(c.var.db, caller.organizationId, caller.mode, { endpointId: endpoint_id, status, event }, limit, cursor);
    return c.json(toPage(rows, limit, summary), 200);
  });

  app.openapi(get, async (c) => {
    const caller = c.get("caller");
    const db = c.var.db;
    const row = await find(db, caller.organizationId, caller.mode, c.req.valid("param").id);
    const attempts = await attemptsOf(db, row.id);
    return c.json(
      {
        ...summary(row),
        request_body: row.bodyDeletedAt === null ? row.requestBody : null,
        response_body_start: row.responseBodyStart,
        body_deleted_at: row.bodyDeletedAt,
        attempts_log: attempts.map((a) => ({ attempt: a.attempt, webhook_id: a.webhookId, started_at: a.startedAt, duration_ms: a.durationMs, response_status: a.responseStatus, failure_reason: a.failureReason })),
      },
      200,
    );
  });

  app.openapi(retry, async (c) => {
    const caller = c.get("caller");
    const db = c.var.db;
    const row = await find(db, caller.organizationId, caller.mode, c.req.valid("param").id);
    // A retry sends the exact body the receiver's signature check covers: once deleted, nothing faithful is left to send.
    if (row.bodyDeletedAt !== null) throw new ApiError("webhook_delivery_body_deleted");
    const notRetryable = () => new ApiError("webhook_delivery_not_retryable", { detail: `The delivery is ${row.status}.` });
    // Checked before the hourly budget is charged: a refused retry sends nothing.
    if (!(RETRYABLE_DELIVERY_STATUSES as readonly string[]).includes(row.status)) throw notRetryable();
    const limit = await takeRateLimit(c.env.RATE_LIMIT_BUCKET, `delivery-retries:${row.endpointId}`, MANUAL_RETRIES_PER_HOUR, "read", 3_600_000);
    if (!limit.allowed) {
      throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) }, detail: `At most ${MANUAL_RETRIES_PER_HOUR} manual retries per endpoint per hour.` });
    }
    if (!(await retryDeliveryNow(c.env, row.id))) throw notRetryable();
    return c.json(summary(await find(db, caller.organizationId, caller.mode, row.id)), 202);
  });
}
