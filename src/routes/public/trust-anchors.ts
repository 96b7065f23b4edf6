import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { publishedRoots, publishedSealCertificates } from "../../trust-anchors/published-roots.ts";

const TrustAnchorSchema = z
  .object({
    kind: z.enum(["timestamp_authority", "c2pa"]).openapi({
      description: t(
        "Whose root: a timestamp authority's, or the service root (`c2pa`), which anchors both the C2PA signature of every file and the seal over the whole proof (manifest.p7s).",
        "De qui est la racine : d'une autorité d'horodatage, ou la racine du service (`c2pa`), qui ancre à la fois la signature C2PA de chaque fichier et le sceau de la preuve entière (manifest.p7s).",
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
        "SHA-256 of the certificate's DER, lower-case hex: the value to pin (`proof-verify --tsa-root-sha256` / `--service-root-sha256`).",
        "SHA-256 du DER du certificat, en hexadécimal minuscule : la valeur à épingler (`proof-verify --tsa-root-sha256` / `--service-root-sha256`).",
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

const SealCertificateSchema = z
  .object({
    mode: z.enum(["test", "live"]).openapi({
      description: t(
        "Test proofs are sealed by a test certificate under the test root: no legal value.",
        "Les preuves de test sont scellées par un certificat de test sous la racine de test : aucune valeur légale.",
      ),
    }),
    status: z.enum(["current", "past"]).openapi({
      description: t(
        "`current`: the latest proof of this mode was sealed with it. A new certificate appearing here is a rotation; proofs sealed with a `past` one stay valid (a seal is judged at its timestamp's gen_time).",
        "`current` : la dernière preuve de ce mode a été scellée avec lui. Un nouveau certificat qui apparaît ici est une rotation ; les preuves scellées avec un certificat `past` restent valides (un sceau est jugé à la gen_time de son horodatage).",
      ),
    }),
    subject: z.string(),
    issuer: z.string().openapi({ description: t("The service root of its mode that issued it.", "La racine du service de son mode, qui l'a émis.") }),
    serial: z.string().openapi({ description: t("Serial number, lower-case hex.", "Numéro de série, en hexadécimal minuscule.") }),
    sha256: z.string().openapi({
      description: t(
        "SHA-256 of the certificate's DER, lower-case hex: what a proof's `seal.certificate_sha256` names.",
        "SHA-256 du DER du certificat, en hexadécimal minuscule : ce que nomme `seal.certificate_sha256` d'une preuve.",
      ),
    }),
    openssl_fingerprint: z.string(),
    not_before: z.string(),
    not_after: z.string(),
    first_sealed_at: z.string(),
    last_sealed_at: z.string(),
    pem: z.string(),
  })
  .openapi("SealCertificate", {
    description: t(
      "A certificate that signed proofs' manifest.json as a whole (manifest.p7s). Not an anchor: verifiers pin its root (kind `c2pa`) and check the seal with `openssl cms -verify`.",
      "Un certificat qui a signé le manifest.json de preuves dans leur ensemble (manifest.p7s). Pas une ancre : les vérificateurs épinglent sa racine (type `c2pa`) et vérifient le sceau avec `openssl cms -verify`.",
    ),
  });

const route = publicRoute([], {
  method: "get",
  path: "/v1/public/trust-anchors",
  operationId: "listTrustAnchors",
  tags: ["Public verification"],
  summary: t("List the roots proofs chain to", "Lister les racines des preuves"),
  description: t(
    "No credential. Every timestamp authority root and service root the service's proofs have been sealed under, current and past, with their SHA-256 fingerprints, and the certificates that sealed proofs as a whole (manifest.p7s) with their validity. A verifier pins two roots: the authority's, and the service root, which anchors both the files' C2PA signatures and the seal. A chain taken from a package proves nothing by itself: compare these fingerprints with a source independent of the package (the authority's own publication, the EU Trusted List for a qualified authority, the repository's docs/trust-anchors.md).",
    "Sans identifiant. Chaque racine d'autorité d'horodatage et racine du service sous laquelle des preuves du service ont été scellées, actuelles et passées, avec leurs empreintes SHA-256, et les certificats qui ont scellé des preuves dans leur ensemble (manifest.p7s) avec leur validité. Un vérificateur épingle deux racines : celle de l'autorité, et la racine du service, qui ancre à la fois les signatures C2PA des fichiers et le sceau. Une chaîne prise dans un paquet ne prouve rien à elle seule : comparez ces empreintes avec une source indépendante du paquet (la publication de l'autorité elle-même, la liste de confiance de l'UE pour une autorité qualifiée, docs/trust-anchors.md dans le dépôt).",
  ),
  responses: {
    200: {
      description: t("The roots, current first within each kind and mode.", "Les racines, l'actuelle en premier pour chaque type et mode."),
      content: { "application/json": { schema: z.object({ data: z.array(TrustAnchorSchema), seal_certificates: z.array(SealCertificateSchema) }) } },
    },
  },
});

export function registerListTrustAnchors(app: App) {
  app.openapi(route, async (c) => {
    const ctx = { env: c.env };
    const [data, sealCertificates] = await Promise.all([publishedRoots({ ctx }), publishedSealCertificates({ ctx })]);
    return c.json({ data, seal_certificates: sealCertificates }, 200);
  });
}
