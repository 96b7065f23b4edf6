import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema/index.ts";
import { boundedCache } from "../../shared/bounded-cache.ts";

export type Database = ReturnType<typeof buildDatabase>;

function buildDatabase(d1: D1Database) {
  return drizzle(d1, { schema });
}

/**
 * One client per binding for the isolate's life: building one walks the whole schema (drizzle's relational
 * config), which was a tenth of an authenticated request's CPU when done per request. A client holds no
 * per-request state, only the binding, which lives as long as the isolate. An isolate has one binding per D1
 * shard (docs/adr/0062; the tests wrap each once more): 64 kept, so a deployment of up to 32 shards never
 * rebuilds one, and a larger one rebuilds only its least used.
 */
const clients = boundedCache<D1Database, Database>({ maxEntries: 64 });

export function database(d1: D1Database): Database {
  return clients.getOrSet(d1, () => buildDatabase(d1));
}
