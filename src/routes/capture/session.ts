import type { App } from "../../app.ts";
import { t } from "../../openapi/translations.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSession } from "../../capture-page/access.ts";
import { captureSessionView } from "../../capture-page/session-view.ts";
import { noStore } from "./no-store.ts";
import { captureLinkRoute, CaptureSessionViewSchema, TokenParams, captureAnswer } from "./schema.ts";

const route = captureLinkRoute(["sealed_record_unavailable"], {
  method: "get",
  path: "/c/{token}/session",
  operationId: "getCapturePageSession",
  summary: t("Read the capture session", "Lire la session de capture"),
  description: t(
    "The session as the page shows it: texts in its language, steps, theme, files declared so far.",
    "La session telle que la page l'affiche : textes dans sa langue, étapes, thème, fichiers déjà déclarés.",
  ),
  request: { params: TokenParams },
  responses: { 200: captureAnswer("The session.", "La session.", CaptureSessionViewSchema) },
});

export function registerCaptureSessionView(app: App) {
  app.openapi(route, async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const input = c.req.valid("param");
    const session = await usableSession({ ctx, input });
    return c.json(await captureSessionView({ ctx, input: { session, token: input.token } }), 200);
  });
}
