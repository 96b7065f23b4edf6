import { z } from "@hono/zod-openapi";
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from "./catalogue.ts";
import { t } from "../openapi/translations.ts";

export const ProblemSchema = z
  .object({
    type: z
      .string()
      .url()
      .openapi({ description: t("URL of the page describing the error code.", "URL de la page décrivant le code d'erreur.") }),
    title: z.string().openapi({ description: t("Human-readable summary; may change.", "Résumé lisible ; peut changer.") }),
    status: z
      .number()
      .int()
      .openapi({ description: t("HTTP status code.", "Code de statut HTTP.") }),
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).openapi({
      description: t("Stable error code; the field to rely on.", "Code d'erreur stable ; le champ sur lequel s'appuyer."),
    }),
    detail: z
      .string()
      .optional()
      .openapi({ description: t("Explanation specific to this occurrence.", "Explication propre à cette occurrence.") }),
    field: z
      .string()
      .optional()
      .openapi({
        description: t(
          "JSON pointer to the faulty input: `/name` for a body field, `/query/name`, `/path/name` or `/header/Name` for a parameter.",
          "Pointeur JSON vers l'entrée fautive : `/name` pour un champ du corps, `/query/name`, `/path/name` ou `/header/Name` pour un paramètre.",
        ),
      }),
    request_id: z
      .string()
      .optional()
      .openapi({ description: t("Identifier of the request, for support.", "Identifiant de la requête, pour le support.") }),
  })
  .openapi("Problem", {
    description: t("An error in the RFC 9457 problem format.", "Une erreur au format problème RFC 9457."),
  });

for (const definition of Object.values(ERROR_CATALOGUE)) {
  t(definition.title.en, definition.title.fr);
  t(definition.description.en, definition.description.fr);
}

/** OpenAPI responses for a route's possible error codes, grouped by status, each code named with its title. */
export function problemResponses(codes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, { description: string; content: { "application/problem+json": { schema: typeof ProblemSchema } } }> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const en = statusCodes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].description.en}`).join(" ");
    const fr = statusCodes.map((code) => `\`${code}\` : ${ERROR_CATALOGUE[code].description.fr}`).join(" ");
    responses[status] = { description: t(en, fr), content: { "application/problem+json": { schema: ProblemSchema } } };
  }
  return responses;
}
