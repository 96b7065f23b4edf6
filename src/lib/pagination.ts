import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors/api-error.ts";
import { t } from "../openapi/translations.ts";

export const PageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(50)
    .openapi({ param: { name: "limit", in: "query" }, description: t("Page size, 1 to 100.", "Taille de page, de 1 à 100."), example: 50 }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description: t("`next_cursor` of the previous page; opaque.", "`next_cursor` de la page précédente ; opaque."),
    }),
});

/** The list envelope of every list route. */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .strictObject({
      data: z.array(item),
      has_more: z.boolean().openapi({ description: t("Whether another page follows.", "Indique si une autre page suit.") }),
      next_cursor: z
        .string()
        .nullable()
        .openapi({ description: t("Send it back as `cursor` for the next page.", "À renvoyer comme `cursor` pour la page suivante.") }),
    })
    .openapi(name, { description: t("A page of results, newest first.", "Une page de résultats, les plus récents d'abord.") });
}

/** Where a page ends: the newest-first order is (created_at, id). */
export interface Keyset {
  createdAt: string;
  id: string;
}

function encodeCursor(keyset: Keyset): string {
  return btoa(JSON.stringify([keyset.createdAt, keyset.id]))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The position a cursor names; a cursor this API did not issue is a 422 on `cursor`. */
export function decodeCursor(cursor: string): Keyset {
  try {
    const [createdAt, id] = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))) as unknown[];
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {
    // fall through
  }
  throw new ApiError("validation_failed", { field: "/query/cursor", detail: "The cursor is not one this API issued." });
}

/** Cuts the `limit + 1` rows fetched into a page and its cursor. */
export function toPage<Row extends Keyset, Item>(rows: Row[], limit: number, present: (row: Row) => Item) {
  const has_more = rows.length > limit;
  const kept = has_more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return { data: kept.map(present), has_more, next_cursor: has_more && last ? encodeCursor(last) : null };
}
