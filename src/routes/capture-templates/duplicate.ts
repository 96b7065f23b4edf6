import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { duplicateCaptureTemplate } from "../../capture-templates/duplicate-template.ts";
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
      "Copies a template (archived ones included) under a new name, in the same mode, editable until sessions are created from it: the way to change a frozen live template. The copy is active and not in use; if the source's theme was archived since, the copy uses the default theme (`theme_id` null). It keeps `stage` and `category` only when no other active template has them (at most one active template per pair); otherwise both are null and the copy is used by its id until you archive the other and set them.",
      "Copie un modèle (archivés compris) sous un nouveau nom, dans le même mode, modifiable jusqu'à ce que des sessions en soient créées : la façon de changer un modèle live figé. La copie est active et non utilisée ; si le thème de la source a été archivé depuis, la copie utilise le thème par défaut (`theme_id` null). Elle garde `stage` et `category` seulement si aucun autre modèle actif ne les a (un seul modèle actif par couple) ; sinon les deux sont null et la copie s'utilise par son identifiant jusqu'à ce que vous archiviez l'autre et les définissiez.",
    ),
    request: { params: TemplateIdParams, body: { content: { "application/json": { schema: DuplicateTemplateBody } }, required: true } },
    responses: {
      201: { description: t("The copy.", "La copie."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerDuplicateTemplate(app: App) {
  app.openapi(route, async (c) => {
    const copy = await duplicateCaptureTemplate({ ctx: apiContext(c), input: { id: c.req.valid("param").id, name: c.req.valid("json").name } });
    return c.json(presentTemplate(copy), 201);
  });
}
