import type { Context } from "hono";
import type { Database } from "../db/client.ts";
import { FIRST_SHARD, shardDatabase, type ShardCode } from "../db/shards.ts";
import type { ApiCaller, Env, HonoEnv } from "../env.ts";

/**
 * What a domain function may need from the request. Every domain function takes `{ ctx, input }` and names
 * the members it uses (`ctx: Pick<DomainContext, "db" | "caller" | "now">`), so a test builds only those.
 */
export interface DomainContext {
  db: Database;
  env: Env;
  caller: ApiCaller;
  /** One clock reading per request: every timestamp an operation writes is this one. */
  now: Date;
}

/** What a queue or cron handler passes down: the platform bindings and the invocation's one database client. */
export type WorkerContext = Pick<DomainContext, "env" | "db">;

/**
 * Built once per queue batch or sweep run, on the shard its work lives in (requests get theirs from
 * src/middleware/database.ts, then from their key, id or token: docs/adr/0062).
 */
export function workerContext(env: Env, shard: ShardCode = FIRST_SHARD): WorkerContext {
  return { env, db: shardDatabase(env, shard) };
}

/** The context of an API-key route (its middleware has set the caller). */
export function apiContext(c: Context<HonoEnv>): DomainContext {
  return { db: c.var.db, env: c.env, caller: c.get("caller"), now: new Date() };
}

/** The context of a capture-page route: no API caller, the link's token authorises it. */
export function captureContext(c: Context<HonoEnv>): Omit<DomainContext, "caller"> {
  return { db: c.var.db, env: c.env, now: new Date() };
}
