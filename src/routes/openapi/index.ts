import { Scalar } from "@scalar/hono-api-reference";
import type { App } from "../../app.ts";
import type { HonoEnv } from "../../env.ts";
import { createApp } from "../../app.ts";
import { registerCaptureRoutes } from "../capture/index.ts";
import { openApiCaptureDocument, openApiDocument, registerSecuritySchemes } from "./document.ts";
import { registerWebhookBodies } from "../../events/openapi-webhooks.ts";

function captureRoutesApp(): App {
  const app = createApp();
  registerCaptureRoutes(app);
  return app;
}

/**
 * `/openapi.json` and `/openapi-capture.json` (`?lang=fr` for French) and the interactive reference at
 * `/docs`; not part of the document.
 */
export function registerOpenApiRoutes(app: App) {
  registerSecuritySchemes(app);
  registerWebhookBodies(app);
  app.get("/openapi.json", (c) => {
    const lang = c.req.query("lang") === "fr" ? "fr" : "en";
    return c.json(openApiDocument(app, c.env.API_BASE_URL, lang));
  });
  // The capture page's routes live on the capture host's app; a copy of it is made only for its document.
  let captureRoutes: App | null = null;
  app.get("/openapi-capture.json", (c) => {
    const lang = c.req.query("lang") === "fr" ? "fr" : "en";
    captureRoutes ??= captureRoutesApp();
    return c.json(openApiCaptureDocument(captureRoutes, c.env.CAPTURE_BASE_URL, lang));
  });
  const reference = {
    en: Scalar<HonoEnv>({ url: "/openapi.json", pageTitle: "Proof-sealing API" }),
    fr: Scalar<HonoEnv>({ url: "/openapi.json?lang=fr", pageTitle: "API de scellement de preuves" }),
  };
  // `/docs?lang=fr` shows the French document, as `/openapi.json?lang=fr` serves it.
  app.get("/docs", (c, next) => reference[c.req.query("lang") === "fr" ? "fr" : "en"](c, next));
}
