import type { App } from "../../app.ts";
import { t } from "../../openapi/translations.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSession } from "../../capture-page/access.ts";
import { declareFile } from "../../capture-page/declare-file.ts";
import { noStore } from "./no-store.ts";
import { captureLinkRoute, DeclaredFileSchema, DeclareFileBody, TokenParams, captureAnswer } from "./schema.ts";

const route = captureLinkRoute(["step_not_found", "content_type_not_allowed", "file_too_large", "too_many_files"], {
  method: "post",
  path: "/c/{token}/files",
  operationId: "declareCaptureFile",
  summary: t("Declare a shot", "Déclarer une prise"),
  description: t(
    "Declares one shot before its upload and answers with signed URLs that write exactly these bytes (several parts above 32 MiB).",
    "Déclare une prise avant son envoi et répond par des URL signées qui écrivent exactement ces octets (plusieurs parties au-delà de 32 Mio).",
  ),
  request: { params: TokenParams, body: jsonBody(DeclareFileBody) },
  responses: { 201: captureAnswer("Declared.", "Déclarée.", DeclaredFileSchema) },
});

export function registerDeclareCaptureFile(app: App) {
  app.openapi(route, async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const { token } = c.req.valid("param");
    const session = await usableSession({ ctx, input: { token } });
    return c.json(await declareFile({ ctx, input: { session, token, file: c.req.valid("json") } }), 201);
  });
}
