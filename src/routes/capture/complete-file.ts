import type { App } from "../../app.ts";
import { t } from "../../openapi/translations.ts";
import { optionalBodyValue, optionalJsonBody } from "../../openapi/bodies.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSessionFile } from "../../capture-page/access.ts";
import { completeMultipart } from "../../capture-page/complete-multipart.ts";
import { noStore } from "./no-store.ts";
import { captureLinkRoute, CompletedFileSchema, CompleteFileBody, FileParams, captureAnswer } from "./schema.ts";

const route = captureLinkRoute(["capture_file_not_found", "upload_incomplete", "upload_size_mismatch", "upload_checksum_mismatch"], {
  method: "post",
  path: "/c/{token}/files/{fileId}/complete",
  operationId: "completeCaptureFile",
  summary: t("Assemble a multipart upload", "Assembler un envoi en plusieurs parties"),
  description: t(
    "Assembles the parts from the ETags the phone reports, then checks the whole file's size and SHA-256.",
    "Assemble les parties à partir des ETag indiqués par le téléphone, puis vérifie la taille et le SHA-256 du fichier entier.",
  ),
  request: { params: FileParams, body: optionalJsonBody(CompleteFileBody) },
  responses: { 200: captureAnswer("Assembled.", "Assemblé.", CompletedFileSchema) },
});

export function registerCompleteCaptureFile(app: App) {
  app.openapi(route, async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const { file } = await usableSessionFile({ ctx, input: c.req.valid("param") });
    const body = optionalBodyValue(CompleteFileBody, c.req.valid("json"));
    await completeMultipart({ ctx, input: { file, reportedParts: body.parts } });
    return c.json({ file_id: file.id, status: "uploaded" }, 200);
  });
}
