import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { apiContext } from "../../domain/context.ts";
import { updateSettings } from "../../settings/update-settings.ts";
import { presentSettings } from "./present.ts";
import { SettingsSchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_settings", cost: "write", errors: [] },
  {
    method: "patch",
    path: "/v1/settings",
    operationId: "updateSettings",
    tags: ["Settings"],
    summary: t("Update the settings", "Modifier les paramètres"),
    description: t(
      "Sets the allowed return origins (the whole list is replaced).",
      "Définit les origines de retour autorisées (la liste entière est remplacée).",
    ),
    request: { body: jsonBody(SettingsSchema) },
    responses: { 200: { description: t("The settings.", "Les paramètres."), content: { "application/json": { schema: SettingsSchema } } } },
  },
);

export function registerUpdateSettings(app: App) {
  app.openapi(route, async (c) => c.json(presentSettings(await updateSettings({ ctx: apiContext(c), input: c.req.valid("json") })), 200));
}
