import { type SQL, sql } from "drizzle-orm";
import type { Mode } from "../auth/mode.ts";
import type { Keyset } from "../lib/pagination.ts";
import { type ArchiveKind, type ArchivedRow, archiveChunkKey, putArchiveChunk, readArchiveChunk } from "./objects/archive.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { statement } from "./statement.ts";

/**
 * The D1 index of the archive (docs/adr/0067, migration 0027): one row per chunk of an organization's events or
 * deliveries in one mode, with the newest and oldest position it holds and the filter values of its rows; the
 * move of due rows into chunks every kind shares (`moveToArchive`), and the lists' reads through it (`pageWithArchive`).
 */

/** Whose archive, and of what. */
export interface ArchiveScope {
  organizationId: string;
  mode: Mode;
  kind: ArchiveKind;
}

/** A chunk about to be committed: its rows newest first, and the distinct filter tuples of those rows. */
interface ChunkToCommit extends ArchiveScope {
  rows: readonly Keyset[];
  filters: readonly (readonly string[])[];
}

/**
 * The chunk's row, inserted only while `stillThere` holds (the archived rows are in D1 as they were written to
 * R2): a row changed meanwhile leaves the chunk uncommitted, and the next round archives it again.
 */
function chunkInsert(d1: D1Database, chunk: ChunkToCommit, stillThere: SQL): D1PreparedStatement {
  const newest = chunk.rows[0]!;
  const oldest = chunk.rows.at(-1)!;
  return statement(
    d1,
    sql`INSERT INTO archive_chunks (organization_id, mode, kind, newest_created_at, newest_id, oldest_created_at, oldest_id, filters, row_count)
      SELECT ${chunk.organizationId}, ${chunk.mode}, ${chunk.kind}, ${newest.createdAt}, ${newest.id}, ${oldest.createdAt}, ${oldest.id},
        ${JSON.stringify(chunk.filters)}, ${chunk.rows.length}
      WHERE ${stillThere}`,
  );
}

/**
 * True in the same batch once the chunk's row was inserted: the rows it holds may then leave D1. Its newest row
 * names it: a chunk committed before holds none of the rows still in D1.
 */
function chunkCommitted(chunk: ChunkToCommit): SQL {
  const newest = chunk.rows[0]!;
  return sql`EXISTS (SELECT 1 FROM archive_chunks WHERE organization_id = ${chunk.organizationId} AND mode = ${chunk.mode} AND kind = ${chunk.kind}
    AND newest_created_at = ${newest.createdAt} AND newest_id = ${newest.id})`;
}

/** The ids as one bound JSON array, for `IN (SELECT value FROM json_each(…))` (D1 binds at most 100 values). */
export const idsOf = (rows: readonly { id: string }[]): SQL => sql`(SELECT value FROM json_each(${JSON.stringify(rows.map((row) => row.id))}))`;

/** The distinct values of `tuple` over `rows`: a chunk's filters. */
function distinctTuples<Row>(rows: readonly Row[], tuple: (row: Row) => string[]): string[][] {
  return [...new Set(rows.map((row) => JSON.stringify(tuple(row))))].map((text) => JSON.parse(text) as string[]);
}

/**
 * Rows by organization, mode and UTC day of creation, each group oldest first as given: one chunk each. A
 * chunk never spans two days, so a list needs to look at no chunk newer than the day after its cursor.
 */
function byChunk<Row extends { organizationId: string; mode: Mode; createdAt: string }>(rows: readonly Row[]): Row[][] {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const chunk = `${row.organizationId} ${row.mode} ${row.createdAt.slice(0, 10)}`;
    groups.set(chunk, [...(groups.get(chunk) ?? []), row]);
  }
  return [...groups.values()];
}

/** What a round of archiving did: the rows that left D1, and the R2 objects it wrote. */
export interface ArchiveTally {
  moved: number;
  writes: number;
}

/** What a kind adds to the move of its rows into chunks; the rest (keys, order, budget, batch) is the same for every kind. */
export interface ChunkMove<Kind extends ArchiveKind> {
  kind: Kind;
  /** A row's values for the lists' filter, in the order `pageWithArchive`'s filter names them. */
  filterOf: (row: ArchivedRow<Kind>) => string[];
  /** The R2 writes a chunk of `rows` costs, its own object included. */
  writesOf: (rows: readonly ArchivedRow<Kind>[]) => number;
  /** The R2 objects written before the chunk's own, if any. */
  writeFirst?: (rows: readonly ArchivedRow<Kind>[]) => Promise<unknown>;
  /** True while every row is in D1 as written to R2: the chunk's row is inserted only then. */
  stillThere: (rows: readonly ArchivedRow<Kind>[]) => SQL;
  /** The deletes, each to take effect only where `committed` holds; the last deletes the rows themselves and counts as moved. */
  deletes: (rows: readonly ArchivedRow<Kind>[], committed: SQL) => SQL[];
}

/**
 * Moves `due` (oldest first) to the archive (docs/adr/0067, decision 4): per organization, mode and day, the
 * R2 objects first, then in one batch the chunk's D1 row, inserted only while the rows are still there, and
 * the deletes, which take effect only once that row exists. Stops before the first chunk whose writes would
 * take the round past `maxWrites` (its rows and the later ones wait for the next round).
 */
export async function moveToArchive<Kind extends ArchiveKind>(
  d1: D1Database,
  store: ObjectStore,
  due: readonly ArchivedRow<Kind>[],
  maxWrites: number,
  move: ChunkMove<Kind>,
): Promise<ArchiveTally> {
  let moved = 0;
  let writes = 0;
  for (const oldestFirst of byChunk(due)) {
    const rows = oldestFirst.toReversed();
    const cost = move.writesOf(rows);
    if (writes + cost > maxWrites) break;
    const oldest = oldestFirst[0]!;
    await move.writeFirst?.(rows);
    await putArchiveChunk<Kind>(store, archiveChunkKey(oldest.organizationId, oldest.mode, move.kind, { oldest, newest: rows[0]!, count: rows.length }), rows);
    writes += cost;
    const chunk = { organizationId: oldest.organizationId, mode: oldest.mode, kind: move.kind, rows, filters: distinctTuples(rows, move.filterOf) };
    const results = await d1.batch([
      chunkInsert(d1, chunk, move.stillThere(rows)),
      ...move.deletes(rows, chunkCommitted(chunk)).map((query) => statement(d1, query)),
    ]);
    moved += results.at(-1)!.meta.changes;
  }
  return { moved, writes };
}

/** The first instant of the UTC day after the one `instant` (ISO 8601) falls in. */
const nextDay = (instant: string) => new Date(Date.parse(`${instant.slice(0, 10)}T00:00:00.000Z`) + 86_400_000).toISOString();

const newerFirst = (a: Keyset, b: Keyset) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1);
const olderThan = (row: Keyset, position: Keyset) => newerFirst(row, position) > 0;

const CHUNKS_PER_QUERY = 10;

/** The filter of a list, position by position of the chunks' tuples; undefined matches any value. */
export type TupleFilter = readonly (string | undefined)[];

function chunksHolding(d1: D1Database, scope: ArchiveScope, filter: TupleFilter, after: Keyset | undefined, before: Keyset | undefined) {
  const wanted = filter.flatMap((value, index) => (value === undefined ? [] : [sql`json_extract(f.value, ${`$[${index}]`}) = ${value}`]));
  return statement(
    d1,
    sql`SELECT newest_created_at, newest_id, oldest_created_at, oldest_id, row_count FROM archive_chunks
      WHERE organization_id = ${scope.organizationId} AND mode = ${scope.mode} AND kind = ${scope.kind}
        ${
          after === undefined
            ? sql``
            : sql`AND newest_created_at < ${nextDay(after.createdAt)}
              AND (oldest_created_at < ${after.createdAt} OR (oldest_created_at = ${after.createdAt} AND oldest_id < ${after.id}))`
        }
        ${before === undefined ? sql`` : sql`AND (newest_created_at < ${before.createdAt} OR (newest_created_at = ${before.createdAt} AND newest_id < ${before.id}))`}
        ${wanted.length === 0 ? sql`` : sql`AND EXISTS (SELECT 1 FROM json_each(filters) f WHERE ${sql.join(wanted, sql` AND `)})`}
      ORDER BY newest_created_at DESC, newest_id DESC LIMIT ${CHUNKS_PER_QUERY}`,
  ).all<{ newest_created_at: string; newest_id: string; oldest_created_at: string; oldest_id: string; row_count: number }>();
}

/**
 * A keyset page (`limit + 1` rows, newest first, older than `after`) of D1's rows and the archive's together:
 * `live` is D1's page, the archive's chunks holding a match are read newest first until none can still hold a
 * row of the page. Chunks may overlap in time (a delivery finished late is archived after younger ones), so
 * the stop is on each chunk's newest row, not on the order the chunks were written.
 */
export async function pageWithArchive<Kind extends ArchiveKind>(
  d1: D1Database,
  store: ObjectStore,
  scope: ArchiveScope & { kind: Kind },
  filter: TupleFilter,
  matches: (row: ArchivedRow<Kind>) => boolean,
  live: ArchivedRow<Kind>[],
  limit: number,
  after: Keyset | undefined,
): Promise<ArchivedRow<Kind>[]> {
  const wanted = limit + 1;
  const seen = new Set(live.map((row) => row.id));
  let page = [...live];
  let before: Keyset | undefined;
  for (;;) {
    const chunks = (await chunksHolding(d1, scope, filter, after, before)).results;
    for (const chunk of chunks) {
      const newest = { createdAt: chunk.newest_created_at, id: chunk.newest_id };
      const last = page[wanted - 1];
      if (last !== undefined && olderThan(newest, last)) return page;
      const oldest = { createdAt: chunk.oldest_created_at, id: chunk.oldest_id };
      const rows = await readArchiveChunk<Kind>(
        store,
        archiveChunkKey(scope.organizationId, scope.mode, scope.kind, { oldest, newest, count: chunk.row_count }),
      );
      const fresh = rows.filter((row) => !seen.has(row.id) && (after === undefined || olderThan(row, after)) && matches(row));
      for (const row of fresh) seen.add(row.id);
      page = [...page, ...fresh].sort(newerFirst).slice(0, wanted);
      before = newest;
    }
    if (chunks.length < CHUNKS_PER_QUERY) return page;
  }
}
