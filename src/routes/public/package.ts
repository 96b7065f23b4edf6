import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { filesToServe, publicProofOrThrow } from "../../verification/find-public-proof.ts";
import { type PackagedReport, verificationPackage } from "../../verification/verification-package.ts";
import { renewableOrNotModified } from "./caching.ts";
import { evidenceVersion, publicEvidenceRecord } from "../../evidence/evidence-state.ts";
import { BinarySchema, PublicProofParams } from "./schema.ts";
import type { Database } from "../../db/client.ts";
import type { ProofRow } from "../../storage/rows.ts";
import { findProofReport } from "../../storage/proof-reports.ts";

const route = publicRoute(["proof_not_found", "sealed_record_unavailable", "sealed_object_missing"], {
  method: "get",
  path: "/v1/public/proofs/{id}/package",
  operationId: "getPublicProofPackage",
  tags: ["Public verification"],
  summary: t("Download the verification package", "Télécharger le paquet de vérification"),
  description: t(
    "A ZIP with manifest.json, proof.tsr, chain.pem, the signed files, the C2PA trust anchor, the revocation data captured at sealing (revocation/: the CRL of each certificate's issuer, the certificate it covers, and index.json saying what each covers or why none could be captured) and VERIFY.md: everything needed to verify offline with sha256sum, openssl and a C2PA reader. Once made (usually within a minute of sealing), the sealed PDF report report.pdf too, and in an after's package its pair's pair-report.pdf. From its first archive timestamp (about an hour after sealing) it also holds the RFC 4998 evidence record evidence-record.ers, which each renewal rewrites (the ETag changes with it); the offline verifier proof-verify checks it.",
    "Un ZIP avec manifest.json, proof.tsr, chain.pem, les fichiers signés, l'ancre de confiance C2PA, les données de révocation recueillies au scellement (revocation/ : la CRL de l'émetteur de chaque certificat, le certificat qu'elle couvre, et index.json qui dit ce que chacune couvre ou pourquoi aucune n'a pu être recueillie) et VERIFY.md : tout ce qu'il faut pour vérifier hors ligne avec sha256sum, openssl et un lecteur C2PA. Une fois établi (en général dans la minute qui suit le scellement), le rapport PDF scellé report.pdf aussi, et dans le paquet d'un après celui de sa paire, pair-report.pdf. Dès son premier horodatage d'archive (environ une heure après le scellement), il contient aussi l'enregistrement de preuve RFC 4998 evidence-record.ers, que chaque renouvellement réécrit (l'ETag change avec lui) ; le vérificateur hors ligne proof-verify le contrôle.",
  ),
  request: { params: PublicProofParams },
  responses: {
    200: { description: t("The package.", "Le paquet."), content: { "application/zip": { schema: BinarySchema } } },
    304: { description: t("Not modified.", "Non modifiée.") },
  },
});

/** The proof's PDF report and, for an after, its pair's, as far as they are made (docs/adr/0044). */
async function packagedReports(db: Database, proof: ProofRow): Promise<(PackagedReport & { sha256: string })[]> {
  const [own, pair] = await Promise.all([findProofReport(db, proof.id, "proof"), proof.compareTo === null ? null : findProofReport(db, proof.id, "pair")]);
  return [
    ...(own === null ? [] : [{ name: "report.pdf" as const, key: own.objectKey, sha256: own.sha256 }]),
    ...(pair === null ? [] : [{ name: "pair-report.pdf" as const, key: pair.objectKey, sha256: pair.sha256 }]),
  ];
}

export function registerGetPublicProofPackage(app: App) {
  app.openapi(route, async (c) => {
    const { proof, files } = await publicProofOrThrow({ ctx: { db: c.var.db, env: c.env }, input: c.req.valid("param") });
    if (proof.status !== "sealed") throw new ApiError("proof_not_found", { detail: "The proof is not sealed yet." });
    // Never a package without its files, nor a 304 confirming one held from before the record was lost.
    const packaged = filesToServe(files);
    const reports = await packagedReports(c.var.db, proof);
    // Nor one missing a stored object (409 sealed_object_missing, never cached): checked before any ETag is given.
    const zip = await verificationPackage({ ctx: { env: c.env }, input: { proof, files: packaged, reports } });
    // The package carries the evidence record, rewritten by each renewal, and the reports once made: the ETag names both.
    const reportsVersion = reports.map((report) => `-${report.sha256.slice(0, 16)}`).join("");
    const notModified = renewableOrNotModified(
      c,
      true,
      `pkg-${proof.manifestSha256}${evidenceVersion(await publicEvidenceRecord(c.env, proof))}${reportsVersion}`,
    );
    if (notModified) return notModified;
    c.header("Content-Type", "application/zip");
    c.header("Content-Disposition", `attachment; filename="${proof.id}.zip"`);
    c.header("Proof-Mode", proof.mode);
    return c.body(zip(), 200);
  });
}
