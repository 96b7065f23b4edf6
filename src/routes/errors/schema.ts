import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";

export const ErrorDescriptionSchema = z
  .strictObject({
    code: z.string().openapi({ description: t("The stable error code.", "Le code d'erreur stable.") }),
    status: z
      .number()
      .int()
      .openapi({ description: t("HTTP status code.", "Code de statut HTTP.") }),
    title: z.string().openapi({ description: t("Short title.", "Titre court.") }),
    description: z.string().openapi({ description: t("When the error occurs.", "Quand l'erreur se produit.") }),
  })
  .openapi("ErrorDescription", { description: t("Description of an error code.", "Description d'un code d'erreur.") });

export const ErrorSlugParams = z.object({
  slug: z.string().openapi({ param: { name: "slug", in: "path" }, description: t("The error code with hyphens.", "Le code d'erreur avec des tirets.") }),
});

/** The HTML twin of the description, for a browser following a problem's `type`. */
export const HtmlPageSchema = z.string();
