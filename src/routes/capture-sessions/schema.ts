import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { IDEMPOTENCY_KEY_PATTERN, LOCALE_PATTERN, LOCATION_REFERENCE_PATTERN, REFERENCE_PATTERN, STAGE_PATTERN } from "../../lib/patterns.ts";

export const CreateCaptureSessionBody = z
  .strictObject({
    external_reference: z
      .string()
      .regex(REFERENCE_PATTERN)
      .openapi({
        description: t(
          "Technical identifier linking all proofs of one transaction (no e-mail, name or spaces).",
          "Identifiant technique reliant toutes les preuves d'une transaction (ni e-mail, ni nom, ni espace).",
        ),
        example: "rental-2026-000123",
      }),
    party: z.enum(["provider", "recipient"]).openapi({ description: t("Who captures.", "Qui capture.") }),
    stage: z
      .string()
      .regex(STAGE_PATTERN)
      .optional()
      .openapi({ description: t("Stage of the transaction, e.g. `checkin`.", "Étape de la transaction, par ex. `checkin`.") }),
    category: z
      .string()
      .regex(STAGE_PATTERN)
      .optional()
      .openapi({ description: t("Category of the object, e.g. `car`.", "Catégorie de l'objet, par ex. `car`.") }),
    template_id: z
      .string()
      .max(80)
      .optional()
      .openapi({
        description: t(
          "Template (`tpl_…`); omit to use the active template matching `stage` and `category`. Not with `compare_to`.",
          "Modèle (`tpl_…`) ; omis, le modèle actif correspondant à `stage` et `category` sert. Pas avec `compare_to`.",
        ),
      }),
    compare_to: z
      .string()
      .max(80)
      .optional()
      .openapi({
        description: t(
          'The sealed "before" proof (`prf_…`) this capture is the "after" of.',
          "La preuve « avant » scellée (`prf_…`) dont cette capture est l'« après ».",
        ),
      }),
    locale: z
      .string()
      .max(35)
      .regex(LOCALE_PATTERN)
      .optional()
      .openapi({
        description: t(
          "Language of the capture page (BCP 47); default: the capture theme's.",
          "Langue de la page de capture (BCP 47) ; par défaut celle du thème de capture.",
        ),
      }),
    return_url: z
      .string()
      .url()
      .max(2048)
      .optional()
      .openapi({
        description: t(
          "Where the page sends the person after the completion text, with `proof_id` and `session_id` appended; https only, its site in the allowed return origins.",
          "Où la page renvoie la personne après le texte de fin, avec `proof_id` et `session_id` ajoutés ; https uniquement, son site parmi les origines de retour autorisées.",
        ),
      }),
    location_reference: z
      .string()
      .regex(LOCATION_REFERENCE_PATTERN)
      .optional()
      .openapi({
        description: t("Technical identifier of the place.", "Identifiant technique du lieu."),
      }),
  })
  .openapi("CreateCaptureSession");

// Hono hands header validators lowercased names, so the documented key is optional to zod; the
// idempotency middleware enforces presence and format before anything runs.
export const IdempotencyHeaders = z.object({
  "Idempotency-Key": z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .openapi({
      param: { name: "Idempotency-Key", in: "header", required: true },
      description: t(
        "8 to 255 letters, digits, `_`, `.`, `:`, `-`, shared by every key of the organization and mode. Once the request ran (it created the session, or failed inside the operation such as `template_not_found`), the same key and body replay its answer for 24 hours; a refusal before it (validation, 402, rights, rate limit) is not kept, so the corrected request may reuse the key.",
        "8 à 255 lettres, chiffres, `_`, `.`, `:`, `-`, partagée par toutes les clés de l'organisation et du mode. Une fois la requête exécutée (elle a créé la session, ou échoué dans l'opération comme `template_not_found`), la même clé et le même corps rejouent sa réponse pendant 24 heures ; un refus avant exécution (validation, 402, droits, limite de débit) n'est pas gardé, la requête corrigée peut donc réutiliser la clé.",
      ),
    }),
});

export const CaptureSessionCreatedSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Session identifier (`cps_…`).", "Identifiant de la session (`cps_…`).") }),
    capture_url: z.string().openapi({ description: t("Single-use link for the person who captures.", "Lien à usage unique pour la personne qui capture.") }),
    expires_at: z.string().openapi({ description: t("When the link expires (30 minutes).", "Expiration du lien (30 minutes).") }),
    mode: ModeSchema,
    compare_to: z
      .string()
      .nullable()
      .openapi({ description: t('The "before" proof, or null.', "La preuve « avant », ou null.") }),
  })
  .openapi("CaptureSessionCreated", { description: t("A new capture session.", "Une nouvelle session de capture.") });

export const CaptureSessionSchema = z
  .strictObject({
    id: z.string(),
    mode: ModeSchema,
    status: z.enum(["open", "completed", "expired", "rejected"]).openapi({ description: t("Where the capture stands.", "Où en est la capture.") }),
    external_reference: z.string(),
    party: z.string(),
    stage: z.string().nullable(),
    category: z.string().nullable(),
    template_id: z.string().nullable(),
    locale: z.string(),
    location_reference: z.string().nullable(),
    return_url: z.string().nullable(),
    compare_to: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    completed_at: z.string().nullable(),
    proof_id: z.string().nullable(),
  })
  .openapi("CaptureSession", {
    description: t(
      "A capture session. The link itself is shown only at creation: only its hash is stored.",
      "Une session de capture. Le lien n'est montré qu'à la création : seule son empreinte est conservée.",
    ),
  });

export const SessionIdParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Session identifier.", "Identifiant de la session.") }),
});
