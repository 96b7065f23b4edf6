import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema/index.ts";

export type Database = ReturnType<typeof buildDatabase>;

function buildDatabase(d1: D1Database) {
  return drizzle(d1, { schema });
}

/**
 * One client per binding for the isolate's life: building one walks the whole schema (drizzle's relational
 * config), which was a tenth of an authenticated request's CPU when done per request. A client holds no
 * per-request state, only the binding, which lives as long as the isolate.
 */
const clients = new WeakMap<D1Database, Database>();

export function database(d1: D1Database): Database {
  let client = clients.get(d1);
  if (client === undefined) {
    client = buildDatabase(d1);
    clients.set(d1, client);
  }
  return client;
}
