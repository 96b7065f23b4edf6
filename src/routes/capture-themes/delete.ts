import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { archiveCaptureTheme } from "../../capture-themes/archive-theme.ts";
import { ThemeIdParams, themeResponse } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "theme_in_use"] },
  {
    method: "delete",
    path: "/v1/capture-themes/{id}",
    operationId: "archiveCaptureTheme",
    tags: ["Capture themes"],
    summary: t("Archive a capture theme", "Archiver un thème de capture"),
    description: t(
      "Deleting archives the theme and answers 200 with it (archiving twice is harmless). Refused while an active (non-archived) template of either mode uses it. An archived default theme stops being the default: sessions then use the built-in look until another theme is made the default or created.",
      "Supprimer archive le thème et répond 200 avec lui (archiver deux fois est sans effet). Refusé tant qu'un modèle actif (non archivé) de l'un ou l'autre mode l'utilise. Un thème par défaut archivé cesse d'être le thème par défaut : les sessions prennent alors l'apparence intégrée jusqu'à ce qu'un autre thème soit rendu par défaut ou créé.",
    ),
    request: { params: ThemeIdParams },
    responses: { 200: themeResponse(t("The archived theme.", "Le thème archivé.")) },
  },
);

export function registerArchiveTheme(app: App) {
  app.openapi(route, async (c) => c.json(presentTheme(await archiveCaptureTheme({ ctx: apiContext(c), input: c.req.valid("param") })), 200));
}
