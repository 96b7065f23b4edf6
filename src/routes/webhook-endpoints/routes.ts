import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { takeRateLimit } from "../../durable/rate-limit-client.ts";
import { deleteEndpoint, listEndpoints, secretsOf } from "../../storage/webhooks.ts";
import { presentEndpoint } from "../../webhooks/present.ts";
import { createEndpoint, endpointOrThrow, rotateSecret, updateEndpoint } from "../../webhooks/endpoints.ts";
import { sendTestEvent } from "../../webhooks/test-event.ts";
import { CreateEndpointBody, EndpointIdParams, EndpointSchema, RotateBody, TestEventBody, UpdateEndpointBody } from "./schema.ts";

const tags = ["Webhooks"];
const TEST_EVENTS_PER_HOUR = 20;
const endpointResponse = (description: string) => ({ description, content: { "application/json": { schema: EndpointSchema } } });
const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });

const create = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["invalid_webhook_url", "webhook_endpoint_limit_reached", "service_unavailable"] },
  {
    method: "post", path: "/v1/webhook-endpoints", operationId: "createWebhookEndpoint", tags,
    summary: t("Create a webhook endpoint", "Créer un point de terminaison de webhook"),
    description: t("Creates an endpoint in the key's mode; the answer shows its signing secret once.", "Crée un point de terminaison dans le mode de la clé ; la réponse montre une seule fois son secret de signature."),
    request: { body: json(CreateEndpointBody) },
    responses: { 201: endpointResponse(t("The endpoint, with its secret.", "Le point de terminaison, avec son secret.")) },
  },
);
const list = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: [] },
  {
    method: "get", path: "/v1/webhook-endpoints", operationId: "listWebhookEndpoints", tags,
    summary: t("List webhook endpoints", "Lister les points de terminaison"),
    description: t("The endpoints of the key's mode (at most 10), without secret values.", "Les points de terminaison du mode de la clé (10 au plus), sans valeur de secret."),
    responses: { 200: { description: t("The endpoints.", "Les points de terminaison."), content: { "application/json": { schema: z.strictObject({ data: z.array(EndpointSchema) }).openapi("WebhookEndpointList") } } } },
  },
);
const get = apiRoute(
  { right: "manage_webhooks", cost: "read", errors: ["webhook_endpoint_not_found"] },
  {
    method: "get", path: "/v1/webhook-endpoints/{id}", operationId: "getWebhookEndpoint", tags,
    summary: t("Get a webhook endpoint", "Lire un point de terminaison"),
    description: t("One endpoint, without its secret value.", "Un point de terminaison, sans la valeur de son secret."),
    request: { params: EndpointIdParams },
    responses: { 200: endpointResponse(t("The endpoint.", "Le point de terminaison.")) },
  },
);
const update = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found", "invalid_webhook_url"] },
  {
    method: "patch", path: "/v1/webhook-endpoints/{id}", operationId: "updateWebhookEndpoint", tags,
    summary: t("Update a webhook endpoint", "Modifier un point de terminaison"),
    description: t("Changes the URL, events, description (null removes it) or status; a disabled endpoint receives nothing.", "Modifie l'URL, les événements, la description (null la retire) ou le statut ; un point désactivé ne reçoit rien."),
    request: { params: EndpointIdParams, body: json(UpdateEndpointBody) },
    responses: { 200: endpointResponse(t("The endpoint.", "Le point de terminaison.")) },
  },
);
const remove = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found"] },
  {
    method: "delete", path: "/v1/webhook-endpoints/{id}", operationId: "deleteWebhookEndpoint", tags,
    summary: t("Delete a webhook endpoint", "Supprimer un point de terminaison"),
    description: t("Deletes the endpoint; its pending deliveries stop.", "Supprime le point de terminaison ; ses livraisons en attente s'arrêtent."),
    request: { params: EndpointIdParams },
    responses: { 204: { description: t("Deleted.", "Supprimé.") } },
  },
);
const rotate = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found", "rotation_in_progress"] },
  {
    method: "post", path: "/v1/webhook-endpoints/{id}/rotate-secret", operationId: "rotateWebhookSecret", tags,
    summary: t("Rotate the signing secret", "Renouveler le secret de signature"),
    description: t(
      "Creates a new secret, shown once; the old one keeps signing (one `v1` each) until `expires_in_seconds` from now.",
      "Crée un nouveau secret, montré une fois ; l'ancien signe encore (un `v1` chacun) jusqu'à `expires_in_seconds` à partir de maintenant.",
    ),
    request: { params: EndpointIdParams, body: { content: { "application/json": { schema: RotateBody } }, required: false } },
    responses: { 200: endpointResponse(t("The endpoint, with its new secret.", "Le point de terminaison, avec son nouveau secret.")) },
  },
);
const test = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found"] },
  {
    method: "post", path: "/v1/webhook-endpoints/{id}/test", operationId: "sendWebhookTestEvent", tags,
    summary: t("Send a test event", "Envoyer un événement de test"),
    description: t(
      "Sends a sample event (default `proof.sealed`) with the real fields, sample values and `\"test\": true`, signed like any delivery; 20 per endpoint per hour.",
      "Envoie un événement d'exemple (par défaut `proof.sealed`) avec les vrais champs, des valeurs d'exemple et `\"test\": true`, signé comme toute livraison ; 20 par point et par heure.",
    ),
    request: { params: EndpointIdParams, body: { content: { "application/json": { schema: TestEventBody } }, required: false } },
    responses: {
      202: {
        description: t("The test delivery, queued.", "La livraison de test, mise en file."),
        content: { "application/json": { schema: z.strictObject({ delivery_id: z.string(), event_id: z.string(), event: z.string() }).openapi("WebhookTestEvent") } },
      },
    },
  },
);

export function registerWebhookEndpointRoutes(app: App) {
  app.openapi(create, async (c) => c.json(await createEndpoint(c.env, c.var.db, c.get("caller"), c.req.valid("json"), new Date()), 201));

  app.openapi(list, async (c) => {
    const db = c.var.db;
    const caller = c.get("caller");
    const endpoints = await listEndpoints(db, caller.organizationId, caller.mode);
    const secrets = await secretsOf(db, endpoints.map((endpoint) => endpoint.id));
    const now = new Date();
    return c.json({ data: endpoints.map((endpoint) => presentEndpoint(endpoint, secrets.get(endpoint.id) ?? [], now)) }, 200);
  });

  app.openapi(get, async (c) => {
    const db = c.var.db;
    const endpoint = await endpointOrThrow(db, c.get("caller"), c.req.valid("param").id);
    return c.json(presentEndpoint(endpoint, (await secretsOf(db, [endpoint.id])).get(endpoint.id) ?? [], new Date()), 200);
  });

  app.openapi(update, async (c) => c.json(await updateEndpoint(c.var.db, c.get("caller"), c.req.valid("param").id, c.req.valid("json"), new Date()), 200));

  app.openapi(remove, async (c) => {
    const db = c.var.db;
    const endpoint = await endpointOrThrow(db, c.get("caller"), c.req.valid("param").id);
    await deleteEndpoint(db, endpoint.id);
    return c.body(null, 204);
  });

  app.openapi(rotate, async (c) => {
    const body = RotateBody.parse((await c.req.json().catch(() => ({}))) ?? {});
    return c.json(await rotateSecret(c.env, c.var.db, c.get("caller"), c.req.valid("param").id, body.expires_in_seconds, new Date()), 200);
  });

  app.openapi(test, async (c) => {
    const db = c.var.db;
    const endpoint = await endpointOrThrow(db, c.get("caller"), c.req.valid("param").id);
    // Validated before the hourly budget is charged: a refused event sends nothing.
    const parsed = TestEventBody.safeParse((await c.req.json().catch(() => ({}))) ?? {});
    if (!parsed.success) throw new ApiError("validation_failed", { field: "/event", detail: parsed.error.issues[0]?.message });
    const limit = await takeRateLimit(c.env.RATE_LIMIT_BUCKET, `test-events:${endpoint.id}`, TEST_EVENTS_PER_HOUR, "read", 3_600_000);
    if (!limit.allowed) throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) }, detail: "At most 20 test events per endpoint per hour." });
    return c.json(await sendTestEvent(c.env, db, endpoint, parsed.data.event, new Date()), 202);
  });
}
