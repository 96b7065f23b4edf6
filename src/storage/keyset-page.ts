import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
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
