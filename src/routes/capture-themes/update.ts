import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { updateCaptureTheme } from "../../capture-themes/update-theme.ts";
import { ThemeIdParams, UpdateThemeBody, themeResponse } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "theme_archived"] },
  {
    method: "patch",
    path: "/v1/capture-themes/{id}",
    operationId: "updateCaptureTheme",
    tags: ["Capture themes"],
    summary: t("Update a capture theme", "Modifier un thème de capture"),
    description: t(
      "Changes the name, colour or language, or makes the theme the default.",
      "Modifie le nom, la couleur ou la langue, ou fait du thème le thème par défaut.",
    ),
    request: { params: ThemeIdParams, body: jsonBody(UpdateThemeBody) },
    responses: { 200: themeResponse(t("The updated theme.", "Le thème modifié.")) },
  },
);

export function registerUpdateTheme(app: App) {
  app.openapi(route, async (c) =>
    c.json(presentTheme(await updateCaptureTheme({ ctx: apiContext(c), input: { id: c.req.valid("param").id, changes: c.req.valid("json") } })), 200),
  );
}
