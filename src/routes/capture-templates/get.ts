import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { templateOrThrow } from "../../capture-templates/find-template.ts";
import { CaptureTemplateSchema, TemplateIdParams } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "read", errors: ["capture_template_not_found"] },
  {
    method: "get",
    path: "/v1/capture-templates/{id}",
    operationId: "getCaptureTemplate",
    tags: ["Capture templates"],
    summary: t("Get a capture template", "Lire un modèle de capture"),
    description: t("Reads one template of the key's mode, archived ones included.", "Lit un modèle du mode de la clé, archivés compris."),
    request: { params: TemplateIdParams },
    responses: {
      200: { description: t("The template.", "Le modèle."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerGetTemplate(app: App) {
  app.openapi(route, async (c) => {
    return c.json(presentTemplate(await templateOrThrow({ ctx: apiContext(c), input: c.req.valid("param") })), 200);
  });
}
