import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { archiveCaptureTemplate } from "../../capture-templates/archive-template.ts";
import { CaptureTemplateSchema, TemplateIdParams } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_template_not_found"] },
  {
    method: "delete",
    path: "/v1/capture-templates/{id}",
    operationId: "archiveCaptureTemplate",
    tags: ["Capture templates"],
    summary: t("Archive a capture template", "Archiver un modèle de capture"),
    description: t(
      "Deleting archives: an archived template starts no session; proofs already made keep it. Archiving twice is harmless.",
      "Supprimer archive : un modèle archivé ne démarre plus de session ; les preuves déjà faites le gardent. Archiver deux fois est sans effet.",
    ),
    request: { params: TemplateIdParams },
    responses: {
      200: { description: t("The archived template.", "Le modèle archivé."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerArchiveTemplate(app: App) {
  app.openapi(route, async (c) => c.json(presentTemplate(await archiveCaptureTemplate({ ctx: apiContext(c), input: c.req.valid("param") })), 200));
}
