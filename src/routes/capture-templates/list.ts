import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { PageQuerySchema, pageSchema, callerCursorScope, readCursor, toPage } from "../../lib/pagination.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { listTemplates } from "../../storage/capture-templates.ts";
import { CaptureTemplateSchema } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "read", errors: ["invalid_cursor"] },
  {
    method: "get",
    path: "/v1/capture-templates",
    operationId: "listCaptureTemplates",
    tags: ["Capture templates"],
    summary: t("List capture templates", "Lister les modèles de capture"),
    description: t(
      "Templates of the key's mode, newest first, with cursor pagination.",
      "Modèles du mode de la clé, les plus récents d'abord, avec pagination par curseur.",
    ),
    request: { query: PageQuerySchema },
    responses: {
      200: {
        description: t("A page of templates.", "Une page de modèles."),
        content: { "application/json": { schema: pageSchema(CaptureTemplateSchema, "CaptureTemplateList") } },
      },
    },
  },
);

export function registerListTemplates(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const { limit, cursor } = c.req.valid("query");
    const scope = callerCursorScope(c, "capture-templates");
    const rows = await listTemplates(c.var.db, caller.organizationId, caller.mode, limit, await readCursor(scope, cursor));
    return c.json(await toPage(scope, rows, limit, presentTemplate), 200);
  });
}
