import type { App } from "../../app.ts";
import { t } from "../../openapi/translations.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSessionFile } from "../../capture-page/access.ts";
import { uploadInstructions } from "../../capture-page/declare-file.ts";
import { objectHead } from "../../storage/objects/bucket.ts";
import { noStore } from "./no-store.ts";
import { captureLinkRoute, FileParams, ReissuedUploadSchema, captureAnswer } from "./schema.ts";

const route = captureLinkRoute(["capture_file_not_found"], {
  method: "post",
  path: "/c/{token}/files/{fileId}/upload",
  operationId: "reissueCaptureUpload",
  summary: t("Renew a file's upload URLs", "Renouveler les URL d'envoi d'un fichier"),
  description: t(
    "New signed URLs for a declared file whose URLs expired, with the parts storage already holds.",
    "De nouvelles URL signées pour un fichier déclaré dont les URL ont expiré, avec les parties déjà stockées.",
  ),
  request: { params: FileParams },
  responses: { 200: captureAnswer("New URLs.", "Nouvelles URL.", ReissuedUploadSchema) },
});

export function registerReissueCaptureUpload(app: App) {
  app.openapi(route, async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile({ ctx, input: { token, fileId } });
    const uploadedParts =
      file.multipartUploadId === null
        ? (await objectHead(c.env, file.originalKey)) !== null
          ? [1]
          : []
        : (file.uploadedParts ?? []).map((part) => part.part_number).sort((a, b) => a - b);
    return c.json({ file_id: file.id, upload: await uploadInstructions(c.env, file, c.env.CAPTURE_BASE_URL, token), uploaded_parts: uploadedParts }, 200);
  });
}
