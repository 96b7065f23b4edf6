import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { optionalBodyValue, optionalJsonBody } from "../../openapi/bodies.ts";
import { ApiError } from "../../errors/api-error.ts";
import { apiContext } from "../../domain/context.ts";
import { takeRateLimit } from "../../durable/rate-limit-client.ts";
import { endpointOrThrow, requireActiveEndpoint } from "../../webhooks/endpoints.ts";
import { sendTestEvent } from "../../webhooks/test-event.ts";
import { EndpointIdParams, TestEventBody, TestEventSentSchema } from "./schema.ts";

const TEST_EVENTS_PER_HOUR = 20;

const route = apiRoute(
  { right: "manage_webhooks", cost: "write", errors: ["webhook_endpoint_not_found", "webhook_endpoint_disabled"] },
  {
    method: "post",
    path: "/v1/webhook-endpoints/{id}/test",
    operationId: "sendWebhookTestEvent",
    tags: ["Webhooks"],
    summary: t("Send a test event", "Envoyer un événement de test"),
    description: t(
      'Sends a sample event (default `proof.sealed`) with the real fields, sample values and `"test": true`, signed like any delivery; 20 per endpoint per hour. A disabled endpoint receives nothing: 409 `webhook_endpoint_disabled` (nothing is queued or counted).',
      "Envoie un événement d'exemple (par défaut `proof.sealed`) avec les vrais champs, des valeurs d'exemple et `\"test\": true`, signé comme toute livraison ; 20 par point et par heure. Un point désactivé ne reçoit rien : 409 `webhook_endpoint_disabled` (rien n'est mis en file ni compté).",
    ),
    request: { params: EndpointIdParams, body: optionalJsonBody(TestEventBody) },
    responses: {
      202: {
        description: t("The test delivery, queued.", "La livraison de test, mise en file."),
        content: { "application/json": { schema: TestEventSentSchema } },
      },
    },
  },
);

export function registerSendTestEvent(app: App) {
  app.openapi(route, async (c) => {
    const ctx = apiContext(c);
    const endpoint = await endpointOrThrow({ ctx, input: c.req.valid("param") });
    requireActiveEndpoint(endpoint);
    // Validated (by the route) before the hourly budget is charged: a refused event sends nothing.
    const { event } = optionalBodyValue(TestEventBody, c.req.valid("json"));
    const limit = await takeRateLimit(c.env.RATE_LIMIT_BUCKET, `test-events:${endpoint.id}`, TEST_EVENTS_PER_HOUR, "read", 3_600_000);
    if (!limit.allowed)
      throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) }, detail: "At most 20 test events per endpoint per hour." });
    return c.json(await sendTestEvent({ ctx, input: { endpoint, event } }), 202);
  });
}
