import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { callerDatabaseOfId } from "../../storage/caller-database.ts";
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
    const { id } = c.req.valid("param");
    const db = await callerDatabaseOfId(c.env, caller, c.var.db, id);
    const session = db === null ? null : await findSession(db, caller.organizationId, caller.mode, id);
    if (session === null) throw new ApiError("capture_session_not_found");
    return c.json(presentCaptureSession(session), 200);
  });
}
