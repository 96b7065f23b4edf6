import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { database } from "../../db/client.ts";
import { ApiError } from "../../errors/api-error.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { findTemplate, insertTemplate } from "../../storage/capture-templates.ts";
import { findTheme } from "../../storage/capture-themes.ts";
import { CaptureTemplateSchema, DuplicateTemplateBody, TemplateIdParams } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_template_not_found"] },
  {
    method: "post",
    path: "/v1/capture-templates/{id}/duplicate",
    operationId: "duplicateCaptureTemplate",
    tags: ["Capture templates"],
    summary: t("Duplicate a capture template", "Dupliquer un modèle de capture"),
    description: t(
      "Copies a template (archived ones included) under a new name, in the same mode, editable until sessions are created from it: the way to change a frozen live template. The copy is active and not in use; if the source's theme was archived since, the copy uses the default theme (`theme_id` null).",
      "Copie un modèle (archivés compris) sous un nouveau nom, dans le même mode, modifiable jusqu'à ce que des sessions en soient créées : la façon de changer un modèle live figé. La copie est active et non utilisée ; si le thème de la source a été archivé depuis, la copie utilise le thème par défaut (`theme_id` null).",
    ),
    request: { params: TemplateIdParams, body: { content: { "application/json": { schema: DuplicateTemplateBody } }, required: true } },
    responses: {
      201: { description: t("The copy.", "La copie."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerDuplicateTemplate(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const db = database(c.env.DB);
    const source = await findTemplate(db, caller.organizationId, caller.mode, c.req.valid("param").id);
    if (source === null) throw new ApiError("capture_template_not_found");
    // An archived source may name a theme archived since; the copy is active, so it falls back to the default.
    const theme = source.themeId === null ? null : await findTheme(db, caller.organizationId, source.themeId);
    const themeId = theme !== null && theme.archivedAt === null ? theme.id : null;
    const now = nowIso();
    const copy = { ...source, id: newId("tpl"), name: c.req.valid("json").name, themeId, archivedAt: null, createdAt: now, updatedAt: now };
    const { inUse: _inUse, ...row } = copy;
    await insertTemplate(db, row);
    return c.json(presentTemplate({ ...row, inUse: false }), 201);
  });
}
