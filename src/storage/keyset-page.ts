import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client.ts";
import { type ShardCode, shardDatabase } from "../db/shards.ts";
import type { Env } from "../env.ts";
import type { Keyset } from "../lib/pagination.ts";

/**
 * Keyset pagination on (created_at, id), newest first: an item created during the traversal is newer
 * than every cursor, so it never shifts the pages still to come (no duplicate, no gap). `after` is the
 * position of a cursor already verified (src/lib/pagination.ts, `readCursor`).
 */
export function keysetPage(columns: { createdAt: SQLiteColumn; id: SQLiteColumn }, after: Keyset | undefined) {
  let where: SQL | undefined;
  if (after !== undefined) {
    where = or(lt(columns.createdAt, after.createdAt), and(eq(columns.createdAt, after.createdAt), lt(columns.id, after.id)));
  }
  return { where, orderBy: [desc(columns.createdAt), desc(columns.id)] };
}

/** `keysetPage`'s ORDER BY in JavaScript: created_at, then id, both descending (ISO times and ids are ASCII, compared as SQLite does). */
const newestFirst = (a: Keyset, b: Keyset): number => {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
};

/**
 * A keyset page of a list whose rows live in several shards, an organization's home and write shards
 * (docs/adr/0070): `pageOf` runs the list's own keyset query (`limit + 1` rows after the cursor's position) on
 * every shard at once, and the pages are merged in the query's order. The `limit + 1` newest rows of the union
 * are among the `limit + 1` newest of each shard, so the first `limit + 1` rows merged, which `toPage` cuts and
 * judges `has_more` by, are exactly those one database holding every shard's rows would answer.
 *
 * The cursor stays the position of the last row answered, whichever shard holds it: ids are unique across
 * shards, so (created_at, id) orders every shard's rows as one list, and "older than that position" is each
 * shard's own position too. An organization with one shard answers today's cursor at today's cost, a cursor
 * issued before it gained a write shard pages on, and a write shard added during a traversal holds only rows
 * newer than the cursor, which it never answers (as any row created meanwhile).
 */
export async function keysetPageAcrossShards<Row extends Keyset>(
  env: Env,
  shards: readonly ShardCode[],
  pageOf: (db: Database) => Promise<Row[]>,
): Promise<Row[]> {
  const pages = await Promise.all(shards.map((shard) => pageOf(shardDatabase(env, shard))));
  return pages.flat().sort(newestFirst);
}
