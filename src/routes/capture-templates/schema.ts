import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { LOCALE_PATTERN, STAGE_PATTERN, STEP_ID_PATTERN } from "../../lib/patterns.ts";

const Locale = z.string().max(35).regex(LOCALE_PATTERN);

export const LocalizedTextSchema = z.union([z.string().min(1).max(2000), z.record(Locale, z.string().min(1).max(2000))]).openapi("LocalizedText", {
  description: t(
    "A plain string used for every language, or an object mapping language tags to strings (it must include the template's default language).",
    "Une chaîne utilisée pour toutes les langues, ou un objet associant des balises de langue à des chaînes (il doit inclure la langue par défaut du modèle).",
  ),
});

export const StepSchema = z
  .strictObject({
    id: z
      .string()
      .regex(STEP_ID_PATTERN)
      .openapi({ description: t("Step identifier, unique in the template.", "Identifiant de l'étape, unique dans le modèle.") }),
    label: LocalizedTextSchema,
    instruction: LocalizedTextSchema,
    required: z
      .boolean()
      .default(true)
      .openapi({ description: t("Whether the step must be captured.", "Indique si l'étape doit être capturée.") }),
    kind: z
      .enum(["photo", "video"])
      .default("photo")
      .openapi({ description: t("What the step captures.", "Ce que l'étape capture.") }),
    min_count: z
      .number()
      .int()
      .min(0)
      .max(50)
      .default(1)
      .openapi({ description: t("Fewest shots.", "Nombre minimal de prises.") }),
    max_count: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(20)
      .openapi({ description: t("Most shots.", "Nombre maximal de prises.") }),
  })
  .openapi("CaptureTemplateStep", { description: t("One shot or series of shots to take.", "Une prise ou une série de prises à faire.") });

const TextsSchema = (name: string, description: string) =>
  z.strictObject({ title: LocalizedTextSchema, body: LocalizedTextSchema.nullable().default(null) }).openapi(name, { description });

const StageSchema = z.string().regex(STAGE_PATTERN).nullable();

const templateFields = {
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .openapi({ description: t("Label for your own use.", "Libellé pour votre propre usage.") }),
  default_locale: Locale.default("en").openapi({
    description: t("Language used when the person's is missing.", "Langue utilisée quand celle de la personne manque."),
  }),
  welcome: TextsSchema("CaptureTemplateWelcome", t("Texts shown before the first step.", "Textes affichés avant la première étape.")),
  steps: z.array(StepSchema).min(1).max(20),
  completion: TextsSchema("CaptureTemplateCompletion", t("Texts shown once the capture is complete.", "Textes affichés une fois la capture terminée."))
    .optional()
    .openapi({
      description: t(
        "Texts shown once the capture is complete. Without them, the service's own thanks in the capture page's ten languages (en, fr, es, de, pt-BR, it, nl, pl, zh-Hans, ar).",
        "Textes affichés une fois la capture terminée. Sans eux, les remerciements du service dans les dix langues de la page de capture (en, fr, es, de, pt-BR, it, nl, pl, zh-Hans, ar).",
      ),
    }),
  theme_id: z
    .string()
    .max(80)
    .nullable()
    .default(null)
    .openapi({ description: t("Theme (`thm_…`), or null for the default theme.", "Thème (`thm_…`), ou null pour le thème par défaut.") }),
  stage: StageSchema.default(null).openapi({
    description: t("Stage this template is used for when no template is named.", "Étape pour laquelle ce modèle sert quand aucun n'est nommé."),
  }),
  category: StageSchema.default(null).openapi({
    description: t("Category this template is used for when no template is named.", "Catégorie pour laquelle ce modèle sert quand aucun n'est nommé."),
  }),
  ask_location: z
    .boolean()
    .default(false)
    .openapi({
      description: t("Ask the phone's location, with the person's consent.", "Demander la position du téléphone, avec le consentement de la personne."),
    }),
};

const SIZE_LIMIT = t(
  "The template's content (default language, welcome, steps, completion) takes at most 500,000 bytes as UTF-8 JSON, so that it fits one database row with margin; a larger one is refused with 422 `template_too_large`.",
  "Le contenu du modèle (langue par défaut, accueil, étapes, fin) occupe au plus 500 000 octets en JSON UTF-8, pour tenir dans une ligne de base de données avec de la marge ; un modèle plus grand est refusé avec 422 `template_too_large`.",
);

export const CreateTemplateBody = z.strictObject(templateFields).openapi("CreateCaptureTemplate", { description: SIZE_LIMIT });

export const UpdateTemplateBody = z
  .strictObject({
    name: templateFields.name.optional(),
    default_locale: Locale.optional(),
    welcome: CreateTemplateBody.shape.welcome.optional(),
    steps: templateFields.steps.optional(),
    completion: CreateTemplateBody.shape.completion,
    theme_id: z.string().max(80).nullable().optional(),
    stage: StageSchema.optional(),
    category: StageSchema.optional(),
    ask_location: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "At least one field." })
  .openapi("UpdateCaptureTemplate", { description: SIZE_LIMIT });

export const DuplicateTemplateBody = z.strictObject({ name: templateFields.name }).openapi("DuplicateCaptureTemplate");

export const CaptureTemplateSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Template identifier (`tpl_…`).", "Identifiant du modèle (`tpl_…`).") }),
    mode: ModeSchema,
    name: z.string(),
    default_locale: z.string(),
    welcome: z.object({ title: LocalizedTextSchema, body: LocalizedTextSchema.nullable() }),
    steps: z.array(StepSchema),
    completion: z.object({ title: LocalizedTextSchema, body: LocalizedTextSchema.nullable() }),
    theme_id: z.string().nullable(),
    stage: z.string().nullable(),
    category: z.string().nullable(),
    ask_location: z.boolean(),
    in_use: z.boolean().openapi({ description: t("A capture session was created from it.", "Une session de capture a été créée à partir de lui.") }),
    archived_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("CaptureTemplate", { description: t("What the capture page asks for.", "Ce que demande la page de capture.") });

export const TemplateIdParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Template identifier.", "Identifiant du modèle.") }),
});
