import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { publicProofOrThrow } from "../../proofs/find-public-proof.ts";
import { fileExtension } from "../../storage/proof-artifacts.ts";
import { immutableOrNotModified } from "./caching.ts";
import { BinarySchema, PublicFileParams } from "./schema.ts";

const route = publicRoute(["proof_not_found", "capture_file_not_found"], {
  method: "get",
  path: "/v1/public/proofs/{id}/files/{file_id}",
  operationId: "getPublicProofFile",
  tags: ["Public verification"],
  summary: t("Download a signed file", "Télécharger un fichier signé"),
  description: t("The C2PA-signed file, as listed in the manifest.", "Le fichier signé C2PA, tel que listé dans le manifeste."),
  request: { params: PublicFileParams },
  responses: {
    200: { description: t("The signed file.", "Le fichier signé."), content: { "application/octet-stream": { schema: BinarySchema } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

export function registerGetPublicProofFile(app: App) {
  app.openapi(route, async (c) => {
    const { id, file_id } = c.req.valid("param");
    const { proof, files } = await publicProofOrThrow({ ctx: { db: c.var.db }, input: { id } });
    const file = files.find((candidate) => candidate.id === file_id);
    if (file === undefined || file.signedKey === null || proof.status !== "sealed") throw new ApiError("capture_file_not_found");
    const notModified = immutableOrNotModified(c, true, file.signedSha256);
    if (notModified) return notModified as never;
    const object = await c.env.FILES.get(file.signedKey);
    if (object === null) throw new ApiError("capture_file_not_found");
    c.header("Content-Type", file.contentType);
    c.header("Content-Length", String(object.size));
    c.header("Content-Disposition", `inline; filename="${file.id}.${fileExtension(file.contentType)}"`);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Proof-Mode", proof.mode);
    return c.body(object.body, 200) as never;
  });
}
