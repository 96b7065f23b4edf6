import type { Context } from "hono";
import type { App } from "../../app.ts";
import type { HonoEnv } from "../../env.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { findProofById } from "../../storage/proofs-read.ts";
import { findProofReport, type ReportKind } from "../../storage/proof-reports.ts";
import { openObject } from "../../storage/objects/bucket.ts";
import { immutableOrNotModified } from "./caching.ts";
import { BinarySchema, PublicProofParams } from "./schema.ts";

const ERRORS = ["proof_not_found", "report_not_ready"] as const;
const responses = {
  200: { description: t("The sealed PDF report.", "Le rapport PDF scellé."), content: { "application/pdf": { schema: BinarySchema } } },
  304: { description: t("Not modified.", "Non modifiée.") },
};

const proofReport = publicRoute([...ERRORS], {
  method: "get",
  path: "/v1/public/proofs/{id}/report.pdf",
  operationId: "getPublicProofReport",
  tags: ["Public verification"],
  summary: t("Download the proof's PDF report", "Télécharger le rapport PDF de la preuve"),
  description: t(
    "The proof's evidence report, A4, in the capture's language (English, French, Spanish or German; English otherwise): its verdict and, in plain words, what it proves and does not; the organization, reference, party, stage, certified time and authority; a summary of every warning; each photo with its step, number, the time the service received it and its SHA-256; the QR code of the verification page; an annex of the technical identifiers, with manifest.json, manifest.p7s and proof.tsr attached. Sealed as PAdES by the service's sealing identity of the proof's mode, with a document timestamp from the proof's authority; a test proof's report says TEST on every page. Made once after sealing and never changed (404 `report_not_ready` until then), and carried in the verification package as report.pdf.",
    "Le rapport de preuve, A4, dans la langue de la capture (anglais, français, espagnol ou allemand ; anglais sinon) : son verdict et, en mots simples, ce qu'elle prouve et ne prouve pas ; l'organisation, la référence, la partie, l'étape, l'heure certifiée et l'autorité ; le résumé de chaque avertissement ; chaque photo avec son étape, son numéro, l'heure à laquelle le service l'a reçue et son SHA-256 ; le QR code de la page de vérification ; une annexe des identifiants techniques, avec manifest.json, manifest.p7s et proof.tsr joints. Scellé en PAdES par l'identité de scellement du service du mode de la preuve, avec un horodatage de document de l'autorité de la preuve ; le rapport d'une preuve de test porte TEST sur chaque page. Établi une fois après le scellement et jamais modifié (404 `report_not_ready` d'ici là), et inclus dans le paquet de vérification sous le nom report.pdf.",
  ),
  request: { params: PublicProofParams },
  responses,
});

const pairReport = publicRoute([...ERRORS], {
  method: "get",
  path: "/v1/public/proofs/{id}/pair-report.pdf",
  operationId: "getPublicPairReport",
  tags: ["Public verification"],
  summary: t("Download a before/after pair's PDF report", "Télécharger le rapport PDF d'une paire avant/après"),
  description: t(
    "The report of the before/after pair the proof belongs to, asked through either proof: the same content as a proof's report, with the before's and the after's photos side by side, aligned step by step with the same numbers, each column with its own certified date and time. Made once the after is sealed (404 `report_not_ready` until then, and for a proof with no after) and carried in the after's verification package as pair-report.pdf.",
    "Le rapport de la paire avant/après à laquelle appartient la preuve, demandé par l'une ou l'autre : le même contenu que le rapport d'une preuve, avec les photos de l'avant et de l'après côte à côte, alignées étape par étape sous les mêmes numéros, chaque colonne avec sa propre date et heure certifiées. Établi une fois l'après scellé (404 `report_not_ready` d'ici là, et pour une preuve sans après) et inclus dans le paquet de vérification de l'après sous le nom pair-report.pdf.",
  ),
  request: { params: PublicProofParams },
  responses,
});

/** Serves the recorded report of `kind` kept with `holderId`, immutable under its SHA-256; the route's problem when there is none. */
async function serveReport(c: Context<HonoEnv>, holderId: string | null, kind: ReportKind, mode: string, filename: string): Promise<Response> {
  const report = holderId === null ? null : await findProofReport(c.var.db, holderId, kind);
  if (report === null) {
    c.header("Cache-Control", "no-store");
    throw new ApiError("report_not_ready");
  }
  const notModified = immutableOrNotModified(c, true, `report-${report.sha256}`);
  if (notModified) return notModified;
  const stored = await openObject(c.env, report.objectKey);
  if (stored === null) {
    c.header("ETag", undefined);
    c.header("Cache-Control", "no-store");
    throw new ApiError("report_not_ready", { detail: "The report's stored file is missing." });
  }
  c.header("Content-Type", "application/pdf");
  c.header("Content-Length", String(stored.size));
  c.header("Content-Disposition", `inline; filename="${filename}"`);
  c.header("Content-Language", report.language);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Proof-Mode", mode);
  return c.body(stored.body, 200);
}

export function registerGetPublicReports(app: App) {
  app.openapi(proofReport, async (c) => {
    const proof = await findProofById(c.var.db, c.req.valid("param").id);
    if (proof === null) throw new ApiError("proof_not_found");
    return serveReport(c, proof.id, "proof", proof.mode, `${proof.id}-report.pdf`);
  });
  app.openapi(pairReport, async (c) => {
    const proof = await findProofById(c.var.db, c.req.valid("param").id);
    if (proof === null) throw new ApiError("proof_not_found");
    // A pair's report is kept with its after: asked through the before, it is its after's.
    const afterId = proof.compareTo !== null ? proof.id : proof.comparedBy;
    return serveReport(c, afterId, "pair", proof.mode, `${afterId ?? proof.id}-pair-report.pdf`);
  });
}
