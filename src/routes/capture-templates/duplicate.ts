import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { database } from "../../db/client.ts";
import { ApiError } from "../../errors/api-error.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { findTemplate, insertTemplate } from "../../storage/capture-templates.ts";
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
      "Copies a template under a new name, editable until sessions are created from it: the way to change a frozen live template.",
      "Copie un modèle sous un nouveau nom, modifiable jusqu'à ce que des sessions en soient créées : la façon de changer un modèle live figé.",
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
    const now = nowIso();
    const copy = { ...source, id: newId("tpl"), name: c.req.valid("json").name, archivedAt: null, createdAt: now, updatedAt: now };
    const { inUse: _inUse, ...row } = copy;
    await insertTemplate(db, row);
    return c.json(presentTemplate({ ...row, inUse: false }), 201);
  });
}
