import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ERROR_CATALOGUE, codeFromSlug } from "../../errors/catalogue.ts";
import { ApiError } from "../../errors/api-error.ts";
import { html } from "../../lib/html.ts";
import { ErrorDescriptionSchema, ErrorSlugParams, HtmlPageSchema } from "./schema.ts";

const route = publicRoute(["not_found"], {
  method: "get",
  path: "/errors/{slug}",
  operationId: "getErrorDescription",
  tags: ["Errors"],
  summary: t("Describe an error code", "Décrire un code d'erreur"),
  description: t(
    "The page a problem's `type` points to: HTML for a browser, JSON otherwise.",
    "La page vers laquelle pointe le `type` d'un problème : HTML pour un navigateur, JSON sinon.",
  ),
  request: {
    params: ErrorSlugParams,
  },
  responses: {
    200: {
      description: t("The error code described.", "Le code d'erreur décrit."),
      content: { "application/json": { schema: ErrorDescriptionSchema }, "text/html": { schema: HtmlPageSchema } },
    },
  },
});

export function registerGetErrorDescription(app: App) {
  app.openapi(route, (c) => {
    const code = codeFromSlug(c.req.valid("param").slug);
    if (code === null) throw new ApiError("not_found");
    const definition = ERROR_CATALOGUE[code];
    const locale = c.get("locale");
    const body = { code, status: definition.status, title: definition.title[locale], description: definition.description[locale] };
    if (c.req.header("Accept")?.includes("text/html")) {
      return c.html(
        html`<!doctype html><html lang="${locale}"><meta charset="utf-8"><title>${body.title}</title><h1>${body.title}</h1><p><code>${code}</code> · HTTP ${body.status}</p><p>${body.description}</p></html>`.toString(),
        200,
      );
    }
    return c.json(body, 200);
  });
}
