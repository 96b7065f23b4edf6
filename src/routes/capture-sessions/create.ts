import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { idempotentRecordedIn, idempotentRequest } from "../../middleware/idempotency.ts";
import { recordedCreationAnswer } from "../../capture-sessions/creation-record.ts";
import { apiContext } from "../../domain/context.ts";
import { createCaptureSession } from "../../capture-sessions/create-capture-session.ts";
import { presentCreatedCaptureSession } from "../../capture-sessions/present.ts";
import { CaptureSessionCreatedSchema, CreateCaptureSessionBody, IdempotencyHeaders } from "./schema.ts";

/** A creation records its attempt with its session (ADR 0046): a retry finds the answer there too. */
const idempotentCreation = idempotentRecordedIn((c, key) => recordedCreationAnswer(c.env, c.get("caller"), key, c.env.CAPTURE_BASE_URL, new Date()));

const route = apiRoute(
  {
    right: "create_proof",
    cost: "write",
    errors: [
      "insufficient_balance",
      "request_in_progress",
      "compare_to_already_used",
      "idempotency_key_reused",
      "template_not_found",
      "return_url_not_allowed",
      "compare_to_not_found",
      "compare_to_not_sealed",
      "compare_to_mismatch",
      "compare_to_is_after",
      "compare_template_mismatch",
    ],
  },
  {
    method: "post",
    path: "/v1/capture-sessions",
    operationId: "createCaptureSession",
    tags: ["Capture sessions"],
    summary: t("Create a capture session", "Créer une session de capture"),
    description: t(
      'Creates a single-use capture link valid 30 minutes. With a live key it reserves one proof of balance (402 when the available balance cannot cover it). With `compare_to` it is the "after" of a sealed "before".',
      "Crée un lien de capture à usage unique valable 30 minutes. Avec une clé live il réserve une preuve du solde (402 si le solde disponible ne la couvre pas). Avec `compare_to` c'est l'« après » d'un « avant » scellé.",
    ),
    middleware: [idempotentCreation] as const,
    request: {
      headers: IdempotencyHeaders,
      body: { content: { "application/json": { schema: CreateCaptureSessionBody } }, required: true },
    },
    responses: {
      201: {
        description: t("The session and its link.", "La session et son lien."),
        content: { "application/json": { schema: CaptureSessionCreatedSchema } },
      },
    },
  },
);

export function registerCreateCaptureSession(app: App) {
  app.openapi(route, async (c) => {
    const created = await createCaptureSession({ ctx: apiContext(c), input: c.req.valid("json"), request: idempotentRequest(c) });
    if (created.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(presentCreatedCaptureSession(created, c.env.CAPTURE_BASE_URL), 201);
  });
}
