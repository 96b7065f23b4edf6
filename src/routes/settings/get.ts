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
    description: t("The organization's settings (shared by both modes).", "Les paramètres de l'organisation (communs aux deux modes)."),
    responses: { 200: { description: t("The settings.", "Les paramètres."), content: { "application/json": { schema: SettingsSchema } } } },
  },
);

export function registerGetSettings(app: App) {
  app.openapi(route, async (c) => c.json(presentSettings(await getAllowedReturnOrigins(c.var.db, c.get("caller").organizationId)), 200));
}
