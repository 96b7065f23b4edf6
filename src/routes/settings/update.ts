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
      "Sets the allowed return origins of the key's mode (the whole list is replaced): a test key changes what test capture sessions accept, a live key what live ones accept; neither changes the other mode.",
      "Définit les origines de retour autorisées du mode de la clé (la liste entière est remplacée) : une clé de test change ce qu'acceptent les sessions de capture de test, une clé live ce qu'acceptent les sessions live ; aucune ne change l'autre mode.",
    ),
    request: { body: jsonBody(SettingsSchema) },
    responses: { 200: { description: t("The settings.", "Les paramètres."), content: { "application/json": { schema: SettingsSchema } } } },
  },
);

export function registerUpdateSettings(app: App) {
  app.openapi(route, async (c) => c.json(presentSettings(await updateSettings({ ctx: apiContext(c), input: c.req.valid("json") })), 200));
}
