import { z } from "@hono/zod-openapi";
import type { App } from "../app.ts";
import { t } from "../openapi/translations.ts";
import { EVENT_CATALOGUE } from "./catalogue.ts";
import type { EventDefinition } from "./define.ts";

/** `proof.sealed` → `ProofSealed`: the event's name as the start of an OpenAPI component or operation name. */
const pascalCase = (type: string) =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");

const DeliveryHeaders = z.object({
  "X-Signature": z.string().openapi({
    description: t(
      "`t=<unix seconds>,v1=<signature>`, one `v1` per active secret: HMAC-SHA256 (lowercase hexadecimal) of `<t>.<raw body>` keyed with the whole secret (`whsec_…`). Reject a call whose `t` is more than 300 s away.",
      "`t=<secondes unix>,v1=<signature>`, un `v1` par secret actif : HMAC-SHA256 (hexadécimal minuscule) de `<t>.<corps brut>` avec le secret entier (`whsec_…`) pour clé. Refusez un appel dont `t` est à plus de 300 s.",
    ),
  }),
  "X-Webhook-Id": z
    .string()
    .openapi({ description: t("Identifier of this delivery attempt (`msg_…`).", "Identifiant de cette tentative de livraison (`msg_…`).") }),
  "X-Event-Id": z.string().openapi({
    description: t(
      "Identifier of the event (`evt_…`), the same on every attempt: de-duplicate on it.",
      "Identifiant de l'événement (`evt_…`), le même à chaque tentative : dédupliquez sur lui.",
    ),
  }),
});

/** The body as sent: `event`, the event's fields in their order, and `test` on test events only. */
function webhookBodySchema(definition: EventDefinition) {
  return z
    .object({
      event: z.literal(definition.type).openapi({ description: t("The one event this body reports.", "L'unique événement que rapporte ce corps.") }),
      ...definition.fields.shape,
      test: z
        .literal(true)
        .optional()
        .openapi({ description: t("Present, and true, on test events only.", "Présent, et vrai, sur les seuls événements de test.") }),
    })
    .openapi(`${pascalCase(definition.type)}Event`, {
      description: t(`The body of a \`${definition.type}\` delivery.`, `Le corps d'une livraison \`${definition.type}\`.`),
    });
}

/**
 * The `webhooks` section of the OpenAPI 3.1 document: one entry per event of the catalogue, what the
 * service POSTs to a subscribed endpoint. Reserved events are never sent, so they have none.
 */
export function registerWebhookBodies(app: App) {
  for (const definition of EVENT_CATALOGUE as readonly EventDefinition[]) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: definition.type,
      operationId: `${pascalCase(definition.type).replace(/^./, (first) => first.toLowerCase())}Webhook`,
      tags: ["Webhooks"],
      summary: definition.summary,
      description: definition.description,
      security: [],
      request: { headers: DeliveryHeaders, body: { required: true, content: { "application/json": { schema: webhookBodySchema(definition) } } } },
      responses: {
        200: {
          description: t(
            "Any 2xx answer acknowledges the delivery. Any other answer, a redirect or no answer within 10 s is retried after 1 min, 5 min, 30 min, 2 h and 12 h, then abandoned.",
            "Toute réponse 2xx accuse réception de la livraison. Toute autre réponse, une redirection ou une absence de réponse en 10 s est retentée après 1 min, 5 min, 30 min, 2 h et 12 h, puis abandonnée.",
          ),
        },
      },
    });
  }
}
