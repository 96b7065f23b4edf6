import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { RightSchema } from "../../auth/rights.ts";

const MeSchema = z
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

const route = apiRoute(
  { right: null, cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/me",
    operationId: "getMe",
    tags: ["Account"],
    summary: t("Key in use", "Clé utilisée"),
    description: t(
      "Tells which key, organization and mode a request is made with. Any valid key may call it.",
      "Indique avec quelle clé, quelle organisation et quel mode la requête est faite. Toute clé valide peut l'appeler.",
    ),
    responses: {
      200: { description: t("The key in use.", "La clé utilisée."), content: { "application/json": { schema: MeSchema } } },
    },
  },
);

export function registerGetMe(app: App) {
  app.openapi(route, (c) => {
    const caller = c.get("caller");
    return c.json(
      {
        organization: { id: caller.organizationId, name: caller.organizationName },
        mode: caller.mode,
        key_id: caller.keyId,
        rights: [...caller.rights],
      },
      200,
    );
  });
}
