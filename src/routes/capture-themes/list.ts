import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { PageQuerySchema, pageSchema, callerCursorScope, readCursor, toPage } from "../../lib/pagination.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { listThemes } from "../../storage/capture-themes.ts";
import { CaptureThemeSchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "read", errors: ["invalid_cursor"] },
  {
    method: "get",
    path: "/v1/capture-themes",
    operationId: "listCaptureThemes",
    tags: ["Capture themes"],
    summary: t("List capture themes", "Lister les thèmes de capture"),
    description: t("Themes of the organization, newest first.", "Thèmes de l'organisation, les plus récents d'abord."),
    request: { query: PageQuerySchema },
    responses: {
      200: {
        description: t("A page of themes.", "Une page de thèmes."),
        content: { "application/json": { schema: pageSchema(CaptureThemeSchema, "CaptureThemeList") } },
      },
    },
  },
);

export function registerListThemes(app: App) {
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const scope = callerCursorScope(c, "capture-themes");
    const rows = await listThemes(c.var.db, c.get("caller").organizationId, limit, await readCursor(scope, cursor));
    return c.json(await toPage(scope, rows, limit, presentTheme), 200);
  });
}
