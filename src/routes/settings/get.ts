import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { getAllowedReturnOrigins } from "../../storage/settings.ts";
import { presentSettings } from "./present.ts";
import { SettingsSchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_settings", cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/settings",
    operationId: "getSettings",
    tags: ["Settings"],
    summary: t("Get the settings", "Lire les paramètres"),
    description: t(
      "The settings of the key's mode: a test key reads the test settings, a live key the live ones. The two modes never share settings.",
      "Les paramètres du mode de la clé : une clé de test lit les paramètres de test, une clé live ceux du mode live. Les deux modes ne partagent jamais de paramètres.",
    ),
    responses: { 200: { description: t("The settings.", "Les paramètres."), content: { "application/json": { schema: SettingsSchema } } } },
  },
);

export function registerGetSettings(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    return c.json(presentSettings(await getAllowedReturnOrigins(c.var.db, caller.organizationId, caller.mode)), 200);
  });
}
