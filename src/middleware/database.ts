import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import type { HonoEnv } from "../env.ts";

/**
 * The request's database client, read by every route as `c.var.db`: shard `00` (the binding `DB`) until
 * the request says where its organization lives. The API-key middleware replaces it with the shard its key
 * names, and routes found by id or token open the shard their id names (src/db/shards.ts, docs/adr/0062).
 */
export const databaseContext = createMiddleware<HonoEnv>(async (c, next) => {
  c.set("db", database(c.env.DB));
  await next();
});
