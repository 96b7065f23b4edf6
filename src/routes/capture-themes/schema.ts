import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { HEX_COLOR_PATTERN, LOCALE_PATTERN } from "../../lib/patterns.ts";

const Name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .openapi({ description: t("Theme name.", "Nom du thème.") });
const PrimaryColor = z
  .string()
  .regex(HEX_COLOR_PATTERN)
  .openapi({ description: t("Hex colour `#rrggbb`.", "Couleur hexadécimale `#rrggbb`."), example: "#0a6cff" });
const Locale = z
  .string()
  .max(35)
  .regex(LOCALE_PATTERN)
  .openapi({ description: t("Default language of capture pages (BCP 47).", "Langue par défaut des pages de capture (BCP 47).") });

export const CreateThemeBody = z.strictObject({ name: Name, primary_color: PrimaryColor, locale: Locale }).openapi("CreateCaptureTheme");

export const UpdateThemeBody = z
  .strictObject({
    name: Name.optional(),
    primary_color: PrimaryColor.optional(),
    locale: Locale.optional(),
    is_default: z
      .literal(true)
      .optional()
      .openapi({ description: t("Make this theme the default.", "Faire de ce thème le thème par défaut.") }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "At least one field." })
  .openapi("UpdateCaptureTheme");

export const CaptureThemeSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Theme identifier (`thm_…`).", "Identifiant du thème (`thm_…`).") }),
    name: z.string(),
    primary_color: z.string(),
    locale: z.string(),
    has_logo: z.boolean().openapi({ description: t("A logo was uploaded.", "Un logo a été envoyé.") }),
    is_default: z.boolean().openapi({ description: t("The theme used when a template names none.", "Le thème utilisé quand un modèle n'en nomme aucun.") }),
    archived_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("CaptureTheme", {
    description: t("Look of the capture page; shared by test and live.", "Apparence de la page de capture ; partagée entre test et live."),
  });

export const ThemeIdParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Theme identifier.", "Identifiant du thème.") }),
});

/** The logo upload: raw bytes in one of the accepted image types, or untyped (the bytes decide). */
export const LogoUploadContent = Object.fromEntries(
  ["image/png", "image/jpeg", "image/webp", "image/svg+xml", "application/octet-stream"].map((type) => [
    type,
    { schema: z.string().openapi({ format: "binary" }) },
  ]),
);

/** A 200 or 201 answering one theme. */
export const themeResponse = (description: string) => ({ description, content: { "application/json": { schema: CaptureThemeSchema } } });
