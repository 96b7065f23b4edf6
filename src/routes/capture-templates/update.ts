import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { updateCaptureTemplate } from "../../capture-templates/update-template.ts";
import { CaptureTemplateSchema, TemplateIdParams, UpdateTemplateBody } from "./schema.ts";

const route = apiRoute(
  {
    right: "manage_templates",
    cost: "write",
    errors: ["capture_template_not_found", "template_frozen", "template_archived", "too_many_languages", "template_too_large", "template_conflict"],
  },
  {
    method: "patch",
    path: "/v1/capture-templates/{id}",
    operationId: "updateCaptureTemplate",
    tags: ["Capture templates"],
    summary: t("Update a capture template", "Modifier un modèle de capture"),
    description: t(
      "Changes any field, `theme_id` included. A live template from which sessions were created is frozen: duplicate it and edit the copy. Test templates stay editable.",
      "Modifie n'importe quel champ, `theme_id` compris. Un modèle live ayant servi à créer des sessions est figé : dupliquez-le et modifiez la copie. Les modèles de test restent modifiables.",
    ),
    request: { params: TemplateIdParams, body: { content: { "application/json": { schema: UpdateTemplateBody } }, required: true } },
    responses: {
      200: { description: t("The updated template.", "Le modèle modifié."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerUpdateTemplate(app: App) {
  app.openapi(route, async (c) => {
    const updated = await updateCaptureTemplate({ ctx: apiContext(c), input: { id: c.req.valid("param").id, changes: c.req.valid("json") } });
    return c.json(presentTemplate(updated), 200);
  });
}
