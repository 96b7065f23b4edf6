import type { App } from "../../app.ts";
import { t, translateDocument } from "../../openapi/translations.ts";
import { declareResponseHeaders } from "../../openapi/response-headers.ts";
import { CALLER_CACHE_TTL_MS } from "../../auth/caller-cache.ts";

const TAGS = [
  { name: "Capture sessions", description: t("Links sent to the person who captures.", "Liens envoyés à la personne qui capture.") },
  { name: "Proofs", description: t("Sealed proofs.", "Preuves scellées.") },
  { name: "Public verification", description: t("Verify a proof without an account.", "Vérifier une preuve sans compte.") },
  { name: "Capture templates", description: t("What the capture page asks for.", "Ce que demande la page de capture.") },
  { name: "Capture themes", description: t("Look of the capture page.", "Apparence de la page de capture.") },
  { name: "Webhooks", description: t("Endpoints, secrets and deliveries.", "Points de terminaison, secrets et livraisons.") },
  { name: "Events", description: t("The organization's event log.", "Le journal des événements de l'organisation.") },
  { name: "Settings", description: t("Settings of the key's mode.", "Paramètres du mode de la clé.") },
  { name: "Account", description: t("The key in use.", "La clé utilisée.") },
  { name: "Health", description: t("Liveness and supervision.", "Disponibilité et supervision.") },
  { name: "Errors", description: t("Descriptions of error codes.", "Descriptions des codes d'erreur.") },
];

const API_DESCRIPTION = t(
  "Turns photos and videos taken during a transaction into sealed proofs: each file is C2PA-signed and the set is timestamped (RFC 3161), so that anyone can verify it independently. Errors use the RFC 9457 problem format with a stable `code`; `field`, when present, is a JSON pointer (RFC 6901) to the faulty input: `/external_reference` or `/steps/0/label` in the body, `/query/limit`, `/path/id` and `/header/Idempotency-Key` for parameters. Deviation from the specification: `POST /v1/webhook-endpoints` can answer `409 webhook_endpoint_limit_reached` (at most 10 endpoints per mode), a status the specification does not list for that route. TypeScript SDK: `@proofseal/sdk` (the repository's `sdk/`, generated from this document; its major version is this API version) wraps every route with typed inputs and errors, Idempotency-Keys and safe retries, list iteration and webhook signature verification.",
  "Transforme les photos et vidéos prises lors d'une transaction en preuves scellées : chaque fichier est signé C2PA et l'ensemble est horodaté (RFC 3161), afin que chacun puisse le vérifier de façon indépendante. Les erreurs suivent le format problème RFC 9457 avec un `code` stable ; `field`, quand il est présent, est un pointeur JSON (RFC 6901) vers l'entrée fautive : `/external_reference` ou `/steps/0/label` dans le corps, `/query/limit`, `/path/id` et `/header/Idempotency-Key` pour les paramètres. Écart par rapport à la spécification : `POST /v1/webhook-endpoints` peut répondre `409 webhook_endpoint_limit_reached` (au plus 10 points de terminaison par mode), un statut que la spécification n'indique pas pour cette route. SDK TypeScript : `@proofseal/sdk` (le dossier `sdk/` du dépôt, généré depuis ce document ; sa version majeure est celle de cette API) couvre chaque route avec entrées et erreurs typées, clés d'idempotence et nouvelles tentatives sûres, parcours des listes et vérification des signatures de webhooks.",
);

/** How long a revoked key may still be accepted somewhere: the isolates' caller cache (src/auth/caller-cache.ts). */
const REVOCATION_DELAY_SECONDS = CALLER_CACHE_TTL_MS / 1000;

/** Declares the two bearer schemes once, when the routes are mounted. */
export function registerSecuritySchemes(app: App) {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: t(
      `API key: \`sk_test_…\` for sandbox, \`sk_live_…\` for production. A revoked key is refused (401) within ${REVOCATION_DELAY_SECONDS} seconds: each server instance trusts a verified key that long.`,
      `Clé d'API : \`sk_test_…\` pour le bac à sable, \`sk_live_…\` pour la production. Une clé révoquée est refusée (401) dans les ${REVOCATION_DELAY_SECONDS} secondes : chaque instance du serveur fait confiance à une clé vérifiée pendant ce temps.`,
    ),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "supervisionToken", {
    type: "http",
    scheme: "bearer",
    description: t("Supervision token (not an API key).", "Jeton de supervision (pas une clé d'API)."),
  });
}

/** The OpenAPI 3.1 document generated from the routes' zod definitions, in English or French. */
export function openApiDocument(app: App, baseUrl: string, lang: "en" | "fr") {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: t("Proof-sealing API", "API de scellement de preuves"),
      version: "1",
      description: API_DESCRIPTION,
      // SPDX identifier of a licence of our own (OpenAPI 3.1 `identifier`, not yet in the generator's types).
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } as { name: string },
    },
    servers: [{ url: baseUrl, description: t("API host", "Hôte de l'API") }],
    tags: TAGS,
  });
  declareResponseHeaders(document);
  return lang === "fr" ? translateDocument(document) : document;
}

/**
 * `/openapi-capture.json`: the capture page's own routes on the capture host (docs/capture-page-protocol.md),
 * generated from their zod schemas. A second document, because integrators never call them: the token in
 * the path is the only credential, and the page is their one client.
 */
export function openApiCaptureDocument(captureApp: App, captureBaseUrl: string, lang: "en" | "fr") {
  const document = captureApp.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: t("Proof-sealing capture page protocol", "Protocole de la page de capture"),
      version: "1",
      description: t(
        "The JSON routes the capture page calls on the capture host, authorised by the capture link's token in the path (no API key). CONTRACT.md's shapes hold as a subset: a declaration with only `step_id`, `content_type`, `size` and `sha256` works, and a single-part upload has `upload.url`, `upload.method` and `upload.headers`. Errors use the RFC 9457 problem format with a stable `code`.",
        "Les routes JSON que la page de capture appelle sur l'hôte de capture, autorisées par le jeton du lien de capture dans le chemin (sans clé d'API). Les formes de CONTRACT.md restent valables : une déclaration avec seulement `step_id`, `content_type`, `size` et `sha256` fonctionne, et un envoi en une partie a `upload.url`, `upload.method` et `upload.headers`. Les erreurs suivent le format problème RFC 9457 avec un `code` stable.",
      ),
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } as { name: string },
    },
    servers: [{ url: captureBaseUrl, description: t("Capture host", "Hôte de capture") }],
    tags: [
      {
        name: "Capture page",
        description: t("Called by the capture page, authorised by the link's token.", "Appelées par la page de capture, autorisées par le jeton du lien."),
      },
    ],
  });
  declareResponseHeaders(document);
  return lang === "fr" ? translateDocument(document) : document;
}
