import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { callerDatabaseOfId } from "../../storage/caller-database.ts";
import { presentProof } from "../../proofs/present-proof.ts";
import { findProof } from "../../storage/proofs.ts";
import { observedProofFiles } from "../../storage/proofs-read.ts";
import { ProofIdParams, ProofSchema } from "./schema.ts";

const route = apiRoute(
  { right: "read_proof", cost: "read", errors: ["proof_not_found"] },
  {
    method: "get",
    path: "/v1/proofs/{id}",
    operationId: "getProof",
    tags: ["Proofs"],
    summary: t("Get a proof", "Lire une preuve"),
    description: t(
      "Reads a proof of the key's organization and mode; any other is `404 proof_not_found`, like a missing one.",
      "Lit une preuve de l'organisation et du mode de la clé ; toute autre donne `404 proof_not_found`, comme une preuve absente.",
    ),
    request: { params: ProofIdParams },
    responses: { 200: { description: t("The proof.", "La preuve."), content: { "application/json": { schema: ProofSchema } } } },
  },
);

export function registerGetProof(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const { id } = c.req.valid("param");
    const db = await callerDatabaseOfId(c.env, caller, c.var.db, id);
    const proof = db === null ? null : await findProof(db, caller.organizationId, caller.mode, id);
    if (db === null || proof === null) throw new ApiError("proof_not_found");
    const files = (await observedProofFiles(db, c.env, [proof])).get(proof.id) ?? [];
    return c.json(presentProof(proof, files, c.env.API_BASE_URL), 200);
  });
}
