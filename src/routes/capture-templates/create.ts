import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTemplate } from "../../capture-templates/present.ts";
import { createCaptureTemplate } from "../../capture-templates/create-template.ts";
import { CaptureTemplateSchema, CreateTemplateBody } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["too_many_languages", "template_too_large", "template_conflict"] },
  {
    method: "post",
    path: "/v1/capture-templates",
    operationId: "createCaptureTemplate",
    tags: ["Capture templates"],
    summary: t("Create a capture template", "Créer un modèle de capture"),
    description: t(
      "Creates a template in the key's mode: the shots to take, welcome and completion texts, theme, and the stage and category it serves. A text is a string or a language map that must include `default_locale`; at most 20 languages over the whole template. Without `completion`, the service's own thanks (in the capture page's ten languages) are used; they do not count toward the 20. At most one active template per `stage` and `category` in a mode (409 `template_conflict`): a session has one template to use.",
      "Crée un modèle dans le mode de la clé : les prises à faire, les textes d'accueil et de fin, le thème, et l'étape et la catégorie qu'il sert. Un texte est une chaîne ou une table de langues qui doit inclure `default_locale` ; au plus 20 langues sur tout le modèle. Sans `completion`, les remerciements du service (dans les dix langues de la page de capture) sont utilisés ; ils ne comptent pas dans les 20. Un seul modèle actif par `stage` et `category` dans un mode (409 `template_conflict`) : une session a un seul modèle à utiliser.",
    ),
    request: { body: { content: { "application/json": { schema: CreateTemplateBody } }, required: true } },
    responses: {
      201: { description: t("The template.", "Le modèle."), content: { "application/json": { schema: CaptureTemplateSchema } } },
    },
  },
);

export function registerCreateTemplate(app: App) {
  app.openapi(route, async (c) => {
    const created = await createCaptureTemplate({ ctx: apiContext(c), input: c.req.valid("json") });
    return c.json(presentTemplate(created), 201);
  });
}
