import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { database } from "../../db/client.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { validateTemplateContent } from "../../capture-templates/validate-template.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { assertUsableTheme } from "../../capture-templates/theme-reference.ts";
import { insertTemplate } from "../../storage/capture-templates.ts";
import { CaptureTemplateSchema, CreateTemplateBody } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["too_many_languages"] },
  {
    method: "post",
    path: "/v1/capture-templates",
    operationId: "createCaptureTemplate",
    tags: ["Capture templates"],
    summary: t("Create a capture template", "Créer un modèle de capture"),
    description: t(
      "Creates a template in the key's mode: the shots to take, welcome and completion texts, theme, and the stage and category it serves.",
      "Crée un modèle dans le mode de la clé : les prises à faire, les textes d'accueil et de fin, le thème, et l'étape et la catégorie qu'il sert.",
    ),
    request: { body: { content: { "application/json": { schema: CreateTemplateBody } }, required: true } },
    responses: {
      201: { description: t("The template.", "Le modèle."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerCreateTemplate(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const body = c.req.valid("json");
    validateTemplateContent(body);
    const db = database(c.env.DB);
    await assertUsableTheme(db, caller.organizationId, body.theme_id);
    const now = nowIso();
    const row = {
      id: newId("tpl"),
      organizationId: caller.organizationId,
      mode: caller.mode,
      name: body.name,
      defaultLocale: body.default_locale,
      welcome: body.welcome,
      steps: body.steps,
      completion: body.completion,
      themeId: body.theme_id,
      stage: body.stage,
      category: body.category,
      askLocation: body.ask_location,
      archivedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertTemplate(db, row);
    return c.json(presentTemplate({ ...row, inUse: false }), 201);
  });
}
