import { boundedCache } from "../../shared/bounded-cache.ts";
import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors/api-error.ts";
import { t } from "../openapi/translations.ts";
import type { Context } from "hono";
import type { HonoEnv } from "../env.ts";

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
      description: t(
        "`next_cursor` of the previous page, as received: opaque and signed, valid only for the list, organization and mode that issued it. An altered or forged cursor is 422 `invalid_cursor`; start again without one.",
        "`next_cursor` de la page précédente, tel que reçu : opaque et signé, valable seulement pour la liste, l'organisation et le mode qui l'ont émis. Un curseur modifié ou forgé donne 422 `invalid_cursor` ; recommencez sans curseur.",
      ),
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

/**
 * What a cursor is good for (docs/adr/0030): the secret its tag is derived from and the list it pages,
 * named with whose list it is (`proofs:org_…:test`). A cursor issued for one list, organization or mode is
 * refused by every other.
 */
export interface CursorScope {
  secret: string;
  list: string;
}

/** The scope of a list an API key reads: the list's name, the caller's organization and mode. */
export function callerCursorScope(c: Context<HonoEnv>, list: string): CursorScope {
  const caller = c.get("caller");
  return { secret: c.env.WEBHOOK_SECRET_KEY, list: `${list}:${caller.organizationId}:${caller.mode}` };
}

const TAG_BYTES = 16;
const encoder = new TextEncoder();

// The cursor key is derived from WEBHOOK_SECRET_KEY with HKDF under a label of its own, so that it is
// independent of the key encrypting webhook secrets and needs no secret of its own (docs/adr/0030).
// One derivation per isolate and secret; 4 secrets at most (one, or two during a rotation), for the isolate's life.
const cursorKeys = boundedCache<string, Promise<CryptoKey>>({ maxEntries: 4 });

function cursorKey(secret: string): Promise<CryptoKey> {
  return cursorKeys.getOrSet(secret, () =>
    crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: encoder.encode("pagination cursor v1") },
          base,
          { name: "HMAC", hash: "SHA-256", length: 256 },
          false,
          ["sign"],
        ),
      ),
  );
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

const fromBase64url = (text: string) => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (char) => char.charCodeAt(0));

/** The first 128 bits of HMAC-SHA256 over the list and the position: enough against forgery, short in a URL. */
async function cursorTag(scope: CursorScope, position: string): Promise<Uint8Array> {
  const mac = await crypto.subtle.sign("HMAC", await cursorKey(scope.secret), encoder.encode(`${scope.list}\n${position}`));
  return new Uint8Array(mac, 0, TAG_BYTES);
}

/** Compares in time independent of where the bytes differ, so a tag cannot be guessed byte by byte. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

async function encodeCursor(scope: CursorScope, keyset: Keyset): Promise<string> {
  const position = base64url(encoder.encode(JSON.stringify([keyset.createdAt, keyset.id])));
  return `${position}.${base64url(await cursorTag(scope, position))}`;
}

/**
 * The position a cursor names, once its tag proves this API issued it for this list; `undefined` for the
 * first page. Anything else (altered, forged, from another list, organization or mode, or from before
 * cursors were signed) is 422 `invalid_cursor` on `/query/cursor`.
 */
export async function readCursor(scope: CursorScope, cursor: string | undefined): Promise<Keyset | undefined> {
  if (cursor === undefined) return undefined;
  const refused = new ApiError("invalid_cursor", {
    field: "/query/cursor",
    detail: "This cursor was not issued by this API for this list, or was altered: send a next_cursor as received, or start again without one.",
  });
  const [position, tag, ...rest] = cursor.split(".");
  if (position === undefined || tag === undefined || rest.length > 0) throw refused;
  let given: Uint8Array;
  try {
    given = fromBase64url(tag);
  } catch {
    throw refused;
  }
  if (!sameBytes(given, await cursorTag(scope, position))) throw refused;
  const [createdAt, id] = JSON.parse(new TextDecoder().decode(fromBase64url(position))) as [string, string];
  return { createdAt, id };
}

/** Cuts the `limit + 1` rows fetched into a page and its signed cursor. */
export async function toPage<Row extends Keyset, Item>(scope: CursorScope, rows: Row[], limit: number, present: (row: Row) => Item) {
  const has_more = rows.length > limit;
  const kept = has_more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return { data: kept.map(present), has_more, next_cursor: has_more && last ? await encodeCursor(scope, last) : null };
}
