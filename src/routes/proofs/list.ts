import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { pageSchema, callerCursorScope, readCursor, toPage } from "../../lib/pagination.ts";
import { presentProof } from "../../proofs/present-proof.ts";
import { keysetPageAcrossShards } from "../../storage/keyset-page.ts";
import { observedFilesOfListedProofs, proofListQuery } from "../../storage/proofs-read.ts";
import { ProofListQuery, ProofSchema } from "./schema.ts";

const route = apiRoute(
  { right: "read_proof", cost: "read", errors: ["invalid_cursor"] },
  {
    method: "get",
    path: "/v1/proofs",
    operationId: "listProofs",
    tags: ["Proofs"],
    summary: t("List proofs", "Lister les preuves"),
    description: t(
      "Proofs of the key's mode, newest first, with an opaque cursor: a proof created while paging never causes a duplicate or a gap.",
      "Preuves du mode de la clé, les plus récentes d'abord, avec un curseur opaque : une preuve créée pendant le parcours ne cause ni doublon ni trou.",
    ),
    request: { query: ProofListQuery },
    responses: {
      200: { description: t("A page of proofs.", "Une page de preuves."), content: { "application/json": { schema: pageSchema(ProofSchema, "ProofList") } } },
    },
  },
);

export function registerListProofs(app: App) {
  app.openapi(route, async (c) => {
    const caller = c.get("caller");
    const { limit, cursor, ...filters } = c.req.valid("query");
    const scope = callerCursorScope(c, "proofs");
    const after = await readCursor(scope, cursor);
    const rows = await keysetPageAcrossShards(c.env, caller.shards, (db) =>
      proofListQuery(db, caller.organizationId, caller.mode, filters, limit, after).all(),
    );
    const files = await observedFilesOfListedProofs(c.env, rows.slice(0, limit));
    return c.json(await toPage(scope, rows, limit, (row) => presentProof(row, files.get(row.id) ?? [], c.env.API_BASE_URL)), 200);
  });
}
