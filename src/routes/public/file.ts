import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { fileExtension } from "../../storage/objects/bucket.ts";
import { BinarySchema, PublicFileParams } from "./schema.ts";
import { serveSealedObject } from "./sealed-object.ts";

const route = publicRoute(["proof_not_found", "capture_file_not_found", "sealed_record_unavailable"], {
  method: "get",
  path: "/v1/public/proofs/{id}/files/{file_id}",
  operationId: "getPublicProofFile",
  tags: ["Public verification"],
  summary: t("Download a signed file", "Télécharger un fichier signé"),
  description: t(
    "The C2PA-signed file, as listed in the manifest. When the service's re-hash of the stored object found it changed since sealing, the stored bytes are still served, as evidence, but with `Sealed-File-Status: altered`, no ETag and no caching: they are not the sealed file (the proof's verdict is then `altered`).",
    "Le fichier signé C2PA, tel que listé dans le manifeste. Quand la nouvelle empreinte de l'objet stocké, calculée par le service, montre qu'il a changé depuis le scellement, les octets stockés sont encore servis, comme élément de preuve, mais avec `Sealed-File-Status: altered`, sans ETag ni mise en cache : ce ne sont pas ceux du fichier scellé (le verdict de la preuve est alors `altered`).",
  ),
  request: { params: PublicFileParams },
  responses: {
    200: { description: t("The signed file.", "Le fichier signé."), content: { "application/octet-stream": { schema: BinarySchema } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

export function registerGetPublicProofFile(app: App) {
  app.openapi(route, async (c) => {
    const { id, file_id } = c.req.valid("param");
    const served = await serveSealedObject(c, { id, fileId: file_id }, (file) => ({
      key: file.signedKey,
      contentType: file.contentType,
      filename: `${file.id}.${fileExtension(file.contentType)}`,
      etag: file.signedSha256,
      missing: "capture_file_not_found",
    }));
    return served;
  });
}
