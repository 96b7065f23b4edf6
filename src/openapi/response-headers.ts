import { t } from "./translations.ts";

/**
 * The response headers the middleware sends, declared on every response of the generated documents
 * (@hono/zod-openapi has no per-route header hook that sees the route's security and errors, so the
 * document is completed once it is generated, from what each operation declares).
 */
const HEADERS = {
  "Request-Id": {
    description: t(
      "Identifier of the request, also in problem bodies; quote it to support.",
      "Identifiant de la requête, aussi dans les corps d'erreur ; à citer au support.",
    ),
    schema: { type: "string", pattern: "^req_[a-z0-9]+$" },
  },
  "RateLimit-Limit": {
    description: t(
      "Units the key may spend per minute (a read costs 1, a creation 2).",
      "Unités que la clé peut dépenser par minute (une lecture coûte 1, une création 2).",
    ),
    schema: { type: "integer", minimum: 0 },
  },
  "RateLimit-Remaining": {
    description: t("Units left in the current minute.", "Unités restantes dans la minute en cours."),
    schema: { type: "integer", minimum: 0 },
  },
  "RateLimit-Reset": {
    description: t(
      "Seconds until the current window ends and the full limit is available again.",
      "Secondes avant la fin de la fenêtre en cours, quand la limite entière redevient disponible.",
    ),
    schema: { type: "integer", minimum: 1 },
  },
  "Retry-After": {
    description: t("Seconds to wait before trying again.", "Secondes à attendre avant de réessayer."),
    schema: { type: "integer", minimum: 1 },
  },
  "Idempotent-Replayed": {
    description: t(
      "`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key and body, not a new execution.",
      "`true` quand cette réponse est celle, conservée, d'une requête antérieure avec la même Idempotency-Key et le même corps, et non une nouvelle exécution.",
    ),
    schema: { type: "string", enum: ["true"] },
  },
  "Proof-Mode": {
    description: t(
      "`test` or `live`: the mode of the proof these bytes belong to. A test proof's timestamp is simulated and proves nothing, even when its file is taken out of the page.",
      "`test` ou `live` : le mode de la preuve à laquelle appartiennent ces octets. L'horodatage d'une preuve de test est simulé et ne prouve rien, même quand son fichier est sorti de la page.",
    ),
    schema: { type: "string", enum: ["test", "live"] },
  },
} as const;

/** The public downloads of a proof's bytes, which say the proof's mode (a test file never passes for a live one). */
const PROOF_BYTES_OPERATIONS = new Set(["getPublicProofFile", "getPublicProofThumbnail", "getPublicProofPackage"]);

type HeaderName = keyof typeof HEADERS;

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { in?: string; name?: string; $ref?: string }[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

/** Which headers a response of this operation carries. */
function headersOf(operation: Operation, status: string): HeaderName[] {
  const names: HeaderName[] = ["Request-Id"];
  const withApiKey = (operation.security ?? []).some((requirement) => "apiKey" in requirement);
  // Every answer past authentication carries the key's rate; a 401 has no key to count against.
  if (withApiKey && status !== "401") names.push("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
  // A public route limited per client address (it declares 429) reports that rate on its answers.
  const addressLimited = !withApiKey && "429" in (operation.responses ?? {});
  if (addressLimited && status.startsWith("2")) names.push("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
  const idempotent = (operation.parameters ?? []).some((parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key");
  if (status === "429" || status === "503" || (idempotent && status === "409")) names.push("Retry-After");
  if (idempotent && status.startsWith("2")) names.push("Idempotent-Replayed");
  if (status === "200" && PROOF_BYTES_OPERATIONS.has(operation.operationId ?? "")) names.push("Proof-Mode");
  return names;
}

/** Adds the header components and, to every response, the headers it is sent with. */
export function declareResponseHeaders<T>(document: T): T {
  const doc = document as { paths?: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> };
  const used = new Set<HeaderName>();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        const names = headersOf(operation!, status);
        for (const name of names) used.add(name);
        response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, ref(name)])) };
      }
    }
  }
  doc.components ??= {};
  doc.components.headers = { ...doc.components.headers, ...Object.fromEntries([...used].map((name) => [name, HEADERS[name]])) };
  return document;
}
