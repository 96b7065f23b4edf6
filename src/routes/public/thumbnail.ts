import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { BinarySchema, PublicFileParams } from "./schema.ts";
import { refusedAsAltered, serveSealedObject } from "./sealed-object.ts";
import { boundThumbnail, readBoundThumbnail, sealedThumbnail } from "../../storage/objects/thumbnails.ts";
import { THUMBNAIL_CONTENT_TYPE } from "../../../shared/sealer-protocol.ts";

const route = publicRoute(["proof_not_found", "capture_file_not_found", "sealed_record_unavailable", "thumbnail_not_found", "thumbnail_altered"], {
  method: "get",
  path: "/v1/public/proofs/{id}/files/{file_id}/thumbnail",
  operationId: "getPublicProofThumbnail",
  tags: ["Public verification"],
  summary: t("Download a photo's thumbnail", "Télécharger la vignette d'une photo"),
  description: t(
    "A light WebP (at most 480 px on its long side and 100 KB) that the service made at sealing from the signed file's own bytes, never supplied by the phone; without metadata, and on a test proof with a TEST band. For seeing, not for proving: only the signed file is in the manifest. None for videos and HEIC photos (404 `thumbnail_not_found`). When the proof's record keeps its SHA-256 (every thumbnail made since sealer protocol 12), other bytes stored in its place are refused (409 `thumbnail_altered`, with `Sealed-File-Status: altered`, no ETag and no caching), never served as the proof's picture.",
    "Un WebP léger (au plus 480 px de grand côté et 100 Ko) que le service a fait au scellement à partir des octets du fichier signé lui-même, jamais fourni par le téléphone ; sans métadonnées, et sur une preuve de test avec un bandeau TEST. Pour voir, pas pour prouver : seul le fichier signé figure dans le manifeste. Aucune pour les vidéos et les photos HEIC (404 `thumbnail_not_found`). Quand le registre de la preuve garde son SHA-256 (toute vignette faite depuis le protocole 12 du scelleur), d'autres octets stockés à sa place sont refusés (409 `thumbnail_altered`, avec `Sealed-File-Status: altered`, sans ETag ni mise en cache), jamais servis comme l'image de la preuve.",
  ),
  request: { params: PublicFileParams },
  responses: {
    200: { description: t("The thumbnail.", "La vignette."), content: { "image/webp": { schema: BinarySchema } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

export function registerGetPublicProofThumbnail(app: App) {
  app.openapi(route, async (c) => {
    const { id, file_id } = c.req.valid("param");
    const served = await serveSealedObject(c, { id, fileId: file_id }, (file, proof) => {
      const thumbnail = sealedThumbnail(proof, file);
      if (thumbnail === null) throw new ApiError("thumbnail_not_found");
      // A record naming an object outside the proof's own run (another proof's picture, an original) is not what sealing wrote.
      if (thumbnail === "elsewhere") throw refusedAsAltered(c, "thumbnail_altered");
      // Made once at sealing and never again: it is immutable like the signed file it comes from. Always served as the
      // one type the sealer makes, whatever a stored record names (forger session 7, G14: never the insider's HTML);
      // when the record keeps its SHA-256, only those bytes (G6).
      return {
        key: thumbnail.key,
        contentType: THUMBNAIL_CONTENT_TYPE,
        filename: `${file.id}-thumbnail.webp`,
        etag: `thumb-${file.signedSha256}`,
        missing: "thumbnail_not_found",
        ...(boundThumbnail(thumbnail) ? { bound: { read: () => readBoundThumbnail(c.env, thumbnail), altered: "thumbnail_altered" as const } } : {}),
      };
    });
    return served;
  });
}
