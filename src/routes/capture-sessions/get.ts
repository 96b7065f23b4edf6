import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { findSession } from "../../storage/capture-sessions.ts";
import { CaptureSessionSchema } from "./schema.ts";

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
      params: z.object({ id: z.string().max(80).openapi({ param: { name: "id", in: "path" }, description: t("Session identifier.", "Identifiant de la session.") }) }),
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
    return c.json(
      {
        id: session.id,
        mode: session.mode,
        status: session.status,
        external_reference: session.externalReference,
        party: session.party,
        stage: session.stage,
        category: session.category,
        template_id: session.templateId,
        locale: session.locale,
        location_reference: session.locationReference,
        return_url: session.returnUrl,
        compare_to: session.compareTo,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
        completed_at: session.completedAt,
        proof_id: session.proofId,
      },
      200,
    );
  });
}
