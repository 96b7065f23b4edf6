import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { RightSchema } from "../../auth/rights.ts";

export const MeSchema = z
  .strictObject({
    organization: z.strictObject({
      id: z.string().openapi({ description: t("Organization identifier (`org_…`).", "Identifiant de l'organisation (`org_…`).") }),
      name: z.string().openapi({ description: t("Organization name.", "Nom de l'organisation.") }),
    }),
    mode: ModeSchema.openapi({ description: t("Mode fixed by the key prefix.", "Mode fixé par le préfixe de la clé.") }),
    key_id: z.string().openapi({ description: t("Identifier of the key in use (`key_…`).", "Identifiant de la clé utilisée (`key_…`).") }),
    rights: z.array(RightSchema).openapi({ description: t("Rights carried by the key.", "Droits portés par la clé.") }),
  })
  .openapi("Me", { description: t("The API key in use.", "La clé d'API utilisée.") });
