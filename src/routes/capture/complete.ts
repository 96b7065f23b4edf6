import type { App } from "../../app.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { captureContext } from "../../domain/context.ts";
import { findSessionByToken, usableSession } from "../../capture-page/access.ts";
import { completeCapture, completionDependencies } from "../../capture-sessions/complete-capture.ts";
import { noStore } from "./no-store.ts";
import { captureLinkRoute, CompleteBody, CompletedCaptureSchema, TokenParams, captureAnswer } from "./schema.ts";

const route = captureLinkRoute(["missing_required_steps", "upload_incomplete", "sealed_record_unavailable"], {
  method: "post",
  path: "/c/{token}/complete",
  operationId: "completeCapture",
  summary: t("Finish the capture", "Terminer la capture"),
  description: t(
    "Finishes the capture and starts sealing; completing again gives the same answer.",
    "Termine la capture et lance le scellement ; terminer de nouveau donne la même réponse.",
  ),
  request: { params: TokenParams, body: jsonBody(CompleteBody) },
  responses: { 200: captureAnswer("Completed.", "Terminée.", CompletedCaptureSchema) },
});

export function registerCompleteCapture(app: App) {
  app.openapi(route, async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const { token } = c.req.valid("param");
    const found = await findSessionByToken(ctx.db, token);
    // A completed capture answers again with the same result (a retried tap); everything else must be usable.
    const session = found?.status === "completed" ? found : await usableSession({ ctx, input: { token } });
    return c.json(await completeCapture({ ctx: completionDependencies(ctx), input: { session } }), 200);
  });
}
