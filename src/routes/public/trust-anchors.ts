import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { publishedRoots } from "../../trust-anchors/published-roots.ts";

const TrustAnchorSchema = z
  .object({
    kind: z.enum(["timestamp_authority", "c2pa"]).openapi({
      description: t(
        "Whose root: a timestamp authority's, or the C2PA signing root.",
        "De qui est la racine : d'une autorité d'horodatage, ou la racine de signature C2PA.",
      ),
    }),
    mode: z
      .enum(["test", "live"])
      .openapi({ description: t("Test roots prove nothing and have no legal value.", "Les racines de test ne prouvent rien et n'ont aucune valeur légale.") }),
    status: z.enum(["current", "past"]).openapi({
      description: t(
        "`current`: the latest proof of this kind and mode was sealed under it. Proofs sealed under a `past` root stay valid.",
        "`current` : la dernière preuve de ce type et de ce mode a été scellée sous elle. Les preuves scellées sous une racine `past` restent valides.",
      ),
    }),
    subject: z.string(),
    sha256: z.string().openapi({
      description: t(
        "SHA-256 of the certificate's DER, lower-case hex: the value to pin (`proof-verify --tsa-root-sha256` / `--c2pa-root-sha256`).",
        "SHA-256 du DER du certificat, en hexadécimal minuscule : la valeur à épingler (`proof-verify --tsa-root-sha256` / `--c2pa-root-sha256`).",
      ),
    }),
    openssl_fingerprint: z.string().openapi({
      description: t(
        "The same, as `openssl x509 -noout -fingerprint -sha256` prints it.",
        "La même, telle que l'affiche `openssl x509 -noout -fingerprint -sha256`.",
      ),
    }),
    first_sealed_at: z.string(),
    last_sealed_at: z.string(),
    pem: z.string(),
  })
  .openapi("TrustAnchor");

const route = publicRoute([], {
  method: "get",
  path: "/v1/public/trust-anchors",
  operationId: "listTrustAnchors",
  tags: ["Public verification"],
  summary: t("List the roots proofs chain to", "Lister les racines des preuves"),
  description: t(
    "No credential. Every timestamp authority root and C2PA signing root the service's proofs have been sealed under, current and past, with their SHA-256 fingerprints. A chain taken from a package proves nothing by itself: compare these fingerprints with a source independent of the package (the authority's own publication, the EU Trusted List for a qualified authority, the repository's docs/trust-anchors.md).",
    "Sans identifiant. Chaque racine d'autorité d'horodatage et de signature C2PA sous laquelle des preuves du service ont été scellées, actuelles et passées, avec leurs empreintes SHA-256. Une chaîne prise dans un paquet ne prouve rien à elle seule : comparez ces empreintes avec une source indépendante du paquet (la publication de l'autorité elle-même, la liste de confiance de l'UE pour une autorité qualifiée, docs/trust-anchors.md dans le dépôt).",
  ),
  responses: {
    200: {
      description: t("The roots, current first within each kind and mode.", "Les racines, l'actuelle en premier pour chaque type et mode."),
      content: { "application/json": { schema: z.object({ data: z.array(TrustAnchorSchema) }) } },
    },
  },
});

export function registerListTrustAnchors(app: App) {
  app.openapi(route, async (c) => c.json({ data: await publishedRoots({ ctx: { db: c.var.db } }) }, 200));
}
