import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { createCaptureTheme } from "../../capture-themes/create-theme.ts";
import { CreateThemeBody, themeResponse } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: [] },
  {
    method: "post",
    path: "/v1/capture-themes",
    operationId: "createCaptureTheme",
    tags: ["Capture themes"],
    summary: t("Create a capture theme", "Créer un thème de capture"),
    description: t(
      "Creates a theme (shared by test and live). The organization's first theme becomes the default.",
      "Crée un thème (partagé entre test et live). Le premier thème de l'organisation devient le thème par défaut.",
    ),
    request: { body: jsonBody(CreateThemeBody) },
    responses: { 201: themeResponse(t("The theme.", "Le thème.")) },
  },
);

export function registerCreateTheme(app: App) {
  app.openapi(route, async (c) => c.json(presentTheme(await createCaptureTheme({ ctx: apiContext(c), input: c.req.valid("json") })), 201));
}
