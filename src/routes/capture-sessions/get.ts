import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { findSession } from "../../storage/capture-sessions.ts";
import { presentCaptureSession } from "../../capture-sessions/present.ts";
import { CaptureSessionSchema, SessionIdParams } from "./schema.ts";

const route = apiRoute(
  { right: "read_proof", cost: "read", errors: ["capture_session_not_found"] },
  {
    method: "get",
    path: "/v1/capture-sessions/{id}",
    operationId: "getCaptureSession",
    tags: ["Capture sessions"],
    summary: t("Get a capture session", "Lire une session de capture"),
    description: t("Reads a session of the key's mode and where it stands.", "Lit une session du mode de la clé et où elle en est."),
    request: {
      params: SessionIdParams,
    },
    responses: {
      200: { description: t("The session.", "La session."), content: { "application/json": { schema: CaptureSessionSchema } } },
    },
  },
);

export function registerGetCaptureSession(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const session = await findSession(c.var.db, caller.organizationId, caller.mode, c.req.valid("param").id);
    if (session === null) throw new ApiError("capture_session_not_found");
    return c.json(presentCaptureSession(session), 200);
  });
}
