import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { themeOrThrow } from "../../capture-themes/find-theme.ts";
import { ThemeIdParams, themeResponse } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "read", errors: ["capture_theme_not_found"] },
  {
    method: "get",
    path: "/v1/capture-themes/{id}",
    operationId: "getCaptureTheme",
    tags: ["Capture themes"],
    summary: t("Get a capture theme", "Lire un thème de capture"),
    description: t("Reads one theme.", "Lit un thème."),
    request: { params: ThemeIdParams },
    responses: { 200: themeResponse(t("The theme.", "Le thème.")) },
  },
);

export function registerGetTheme(app: App) {
  app.openapi(route, async (c) => c.json(presentTheme(await themeOrThrow({ ctx: apiContext(c), input: c.req.valid("param") })), 200));
}
