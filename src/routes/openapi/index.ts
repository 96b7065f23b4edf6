import { Scalar } from "@scalar/hono-api-reference";
import type { App } from "../../app.ts";
import { openApiDocument, registerSecuritySchemes } from "./document.ts";

/** `/openapi.json` (`?lang=fr` for French) and the interactive reference at `/docs`; not part of the document. */
export function registerOpenApiRoutes(app: App) {
  registerSecuritySchemes(app);
  app.get("/openapi.json", (c) => {
    const lang = c.req.query("lang") === "fr" ? "fr" : "en";
    return c.json(openApiDocument(app, c.env.API_BASE_URL, lang));
  });
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Proof-sealing API" }));
}
