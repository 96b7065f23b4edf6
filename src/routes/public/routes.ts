import type { Database } from "../../db/client.ts";
import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { publicProof } from "../../proofs/public-proof.ts";
import { findProofById, proofFiles } from "../../storage/proofs-read.ts";
import { proofArtifactKeys, fileExtension } from "../../storage/proof-artifacts.ts";
import { zipStream, type ZipEntry } from "../../lib/zip/zip-stream.ts";
import { verifyMarkdown } from "../../verification/verify-md.ts";
import { fromEdgeCache, immutableOrNotModified } from "./caching.ts";
import { PublicFileParams, PublicProofParams, PublicProofSchema } from "./schema.ts";

const tags = ["Public verification"];

const getRoute = publicRoute(["proof_not_found"], {
  method: "get",
  path: "/v1/public/proofs/{id}",
  operationId: "getPublicProof",
  tags,
  summary: t("Verify a proof", "Vérifier une preuve"),
  description: t(
    "No credential. The proof's public fields, files and timestamp, and the result of verifying it again from its stored artifacts.",
    "Sans identifiant. Les champs publics de la preuve, ses fichiers et son horodatage, et le résultat d'une nouvelle vérification à partir de ses éléments stockés.",
  ),
  request: { params: PublicProofParams },
  responses: {
    200: { description: t("The proof and its verification.", "La preuve et sa vérification."), content: { "application/json": { schema: PublicProofSchema } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

const fileRoute = publicRoute(["proof_not_found", "capture_file_not_found"], {
  method: "get",
  path: "/v1/public/proofs/{id}/files/{file_id}",
  operationId: "getPublicProofFile",
  tags,
  summary: t("Download a signed file", "Télécharger un fichier signé"),
  description: t("The C2PA-signed file, as listed in the manifest.", "Le fichier signé C2PA, tel que listé dans le manifeste."),
  request: { params: PublicFileParams },
  responses: {
    200: { description: t("The signed file.", "Le fichier signé."), content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

const packageRoute = publicRoute(["proof_not_found"], {
  method: "get",
  path: "/v1/public/proofs/{id}/package",
  operationId: "getPublicProofPackage",
  tags,
  summary: t("Download the verification package", "Télécharger le paquet de vérification"),
  description: t(
    "A ZIP with manifest.json, proof.tsr, chain.pem, the signed files, the C2PA trust anchor and VERIFY.md: everything needed to verify offline with sha256sum, openssl and a C2PA reader.",
    "Un ZIP avec manifest.json, proof.tsr, chain.pem, les fichiers signés, l'ancre de confiance C2PA et VERIFY.md : tout ce qu'il faut pour vérifier hors ligne avec sha256sum, openssl et un lecteur C2PA.",
  ),
  request: { params: PublicProofParams },
  responses: {
    200: { description: t("The package.", "Le paquet."), content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

async function loadProof(db: Database, id: string) {
  const proof = await findProofById(db, id);
  if (proof === null) throw new ApiError("proof_not_found");
  return { proof, files: (await proofFiles(db, [proof.id])).get(proof.id) ?? [] };
}

export function registerPublicProofRoutes(app: App) {
  app.openapi(getRoute, async (c) => {
    const { proof, files } = await loadProof(c.var.db, c.req.valid("param").id);
    const notModified = immutableOrNotModified(c, proof.status === "sealed", proof.manifestSha256);
    if (notModified) return notModified as never;
    return (await fromEdgeCache(c, proof.status === "sealed", async () => c.json(await publicProof(c.env, proof, files), 200))) as never;
  });

  app.openapi(fileRoute, async (c) => {
    const { id, file_id } = c.req.valid("param");
    const { proof, files } = await loadProof(c.var.db, id);
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
    return c.body(object.body, 200) as never;
  });

  app.openapi(packageRoute, async (c) => {
    const { proof, files } = await loadProof(c.var.db, c.req.valid("param").id);
    if (proof.status !== "sealed") throw new ApiError("proof_not_found", { detail: "The proof is not sealed yet." });
    const notModified = immutableOrNotModified(c, true, `pkg-${proof.manifestSha256}`);
    if (notModified) return notModified as never;
    const keys = proofArtifactKeys(proof.id, proof.sealingRun);
    // Signed files carry the CRC-32 the sealer recorded, so the Worker only passes their bytes along
    // (computing it here would cost ~7 s of CPU per GiB). Small artifacts, and files sealed before the
    // sealer recorded it (NULL), are CRC'd on the way.
    const fromStorage = (key: string, crc32: number | null = null) => async () => {
      const object = await c.env.FILES.get(key);
      if (object === null) throw new Error(`missing artifact ${key}`);
      return { stream: object.body, size: object.size, crc32 };
    };
    const entries: ZipEntry[] = [
      { name: "manifest.json", body: fromStorage(keys.manifest) },
      { name: "proof.tsr", body: fromStorage(keys.timestampResponse) },
      { name: "chain.pem", body: fromStorage(keys.timestampChain) },
      { name: "c2pa-trust-anchor.pem", body: fromStorage(keys.c2paTrustAnchor) },
      ...files.map((file) => ({ name: `files/${file.id}.${fileExtension(file.contentType)}`, body: fromStorage(file.signedKey!, file.signedCrc32) })),
      { name: "VERIFY.md", body: async () => verifyMarkdown(proof, files) },
    ];
    c.header("Content-Type", "application/zip");
    c.header("Content-Disposition", `attachment; filename="${proof.id}.zip"`);
    return c.body(zipStream(entries, new Date(proof.sealedAt ?? proof.createdAt)), 200) as never;
  });
}
