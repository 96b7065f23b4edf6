import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { publicProof } from "../../verification/public-proof.ts";
import { publicProofOrThrow } from "../../verification/find-public-proof.ts";
import { fromEdgeCache, renewableOrNotModified } from "./caching.ts";
import { evidenceVersion, publicEvidenceRecord } from "../../evidence/evidence-state.ts";
import { PublicProofParams, PublicProofSchema } from "./schema.ts";
import { latestRehashes, recordVersion, rehashVersion, reportsVersion } from "../../verification/verify-proof.ts";
import { reportsShownWith } from "../../storage/proof-reports.ts";

const route = publicRoute(["proof_not_found"], {
  method: "get",
  path: "/v1/public/proofs/{id}",
  operationId: "getPublicProof",
  tags: ["Public verification"],
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

export function registerGetPublicProof(app: App) {
  app.openapi(route, async (c) => {
    const { proof, files } = await publicProofOrThrow({ ctx: { db: c.var.db, env: c.env }, input: c.req.valid("param") });
    // The answer says when the evidence was last renewed and what the latest re-hash of the stored objects found
    // (docs/adr/0037), and its sealed reports once made: its ETag and edge-cache key change with each.
    const [evidence, rehashes, reports] = await Promise.all([
      publicEvidenceRecord(c.env, proof),
      latestRehashes(c.env, proof),
      reportsShownWith(c.var.db, proof),
    ]);
    // A record found lost changes the version too: never a cached or 304-confirmed verdict from before (docs/adr/0068).
    const version = `${evidenceVersion(evidence)}${rehashVersion(rehashes)}${reportsVersion(reports)}${recordVersion(files)}`;
    const notModified = renewableOrNotModified(c, proof.status === "sealed", proof.manifestSha256 && `${proof.manifestSha256}${version}`);
    if (notModified) return notModified;
    return await fromEdgeCache(c, proof.status === "sealed", async () => c.json(await publicProof(c.env, proof, files, evidence, rehashes), 200), version);
  });
}
