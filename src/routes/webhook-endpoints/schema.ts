import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { EMITTED_EVENTS, SubscribableEventSchema } from "../../events/types.ts";

const Events = z
  .array(SubscribableEventSchema)
  .min(1)
  .max(6)
  .refine((events) => new Set(events).size === events.length, { message: "Events must be unique." })
  .openapi({ description: t("1 to 6 unique events to receive.", "1 à 6 événements distincts à recevoir.") });

const Url = z
  .string()
  .max(2048)
  .openapi({
    description: t(
      "HTTPS URL on a public domain name, written as it is read (`https://host/…`; see `invalid_webhook_url`). Stored and shown in its WHATWG-serialised form (scheme and host in lower case, punycode, default port and dot segments removed), which is what deliveries call. One endpoint per URL in a mode: a URL another endpoint of the mode already has is 422 `webhook_url_already_registered`.",
      "URL HTTPS sur un nom de domaine public, écrite comme elle se lit (`https://hôte/…` ; voir `invalid_webhook_url`). Enregistrée et montrée sous sa forme sérialisée WHATWG (schéma et hôte en minuscules, punycode, port par défaut et segments `..` retirés), celle qu'appellent les livraisons. Un point de terminaison par URL dans un mode : une URL qu'un autre point du mode a déjà donne 422 `webhook_url_already_registered`.",
    ),
  });

export const CreateEndpointBody = z.strictObject({ url: Url, events: Events, description: z.string().max(200).optional() }).openapi("CreateWebhookEndpoint");

export const UpdateEndpointBody = z
  .strictObject({
    url: Url.optional(),
    events: Events.optional(),
    description: z.string().max(200).nullable().optional(),
    status: z.enum(["active", "disabled"]).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "At least one field." })
  .openapi("UpdateWebhookEndpoint");

export const RotateBody = z
  .strictObject({
    expires_in_seconds: z
      .number()
      .int()
      .min(60)
      .max(604800)
      .default(86400)
      .openapi({ description: t("How long the old secret keeps signing.", "Durée pendant laquelle l'ancien secret signe encore.") }),
  })
  .openapi("RotateWebhookSecret");

// `capture_session.expired` and `dossier.ready` are reserved: never sent, so no sample of them either.
export const TestEventBody = z
  .strictObject({
    event: z
      .enum(EMITTED_EVENTS)
      .default("proof.sealed")
      .openapi({
        description: t(
          "An event the service sends; reserved events are refused.",
          "Un événement que le service envoie ; les événements réservés sont refusés.",
        ),
      }),
  })
  .openapi("SendTestEvent");

const SecretSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Secret identifier (`whs_…`).", "Identifiant du secret (`whs_…`).") }),
    hint: z.string().openapi({ description: t("First characters, not enough to sign.", "Premiers caractères, insuffisants pour signer.") }),
    status: z.enum(["active", "expired"]),
    expires_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("WebhookSecret", { description: t("A signing secret, never its value.", "Un secret de signature, jamais sa valeur.") });

export const EndpointSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Endpoint identifier (`whe_…`).", "Identifiant du point de terminaison (`whe_…`).") }),
    mode: ModeSchema,
    url: z.string().openapi({
      description: t("The URL deliveries call, in its WHATWG-serialised form.", "L'URL qu'appellent les livraisons, sous sa forme sérialisée WHATWG."),
    }),
    description: z.string().nullable(),
    events: z.array(SubscribableEventSchema),
    status: z.enum(["active", "disabled"]),
    created_at: z.string(),
    updated_at: z.string(),
    secrets: z.array(SecretSchema),
    secret: z
      .string()
      .optional()
      .openapi({
        description: t(
          "The whole signing secret: in creation and rotation answers only.",
          "Le secret de signature complet : seulement dans les réponses de création et de rotation.",
        ),
      }),
  })
  .openapi("WebhookEndpoint", { description: t("Where events are sent.", "Où les événements sont envoyés.") });

export const EndpointListSchema = z.strictObject({ data: z.array(EndpointSchema) }).openapi("WebhookEndpointList");

export const TestEventSentSchema = z.strictObject({ delivery_id: z.string(), event_id: z.string(), event: z.string() }).openapi("WebhookTestEvent");

export const EndpointIdParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Endpoint identifier.", "Identifiant du point de terminaison.") }),
});
