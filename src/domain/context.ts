import type { Context } from "hono";
import { database, type Database } from "../db/client.ts";
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

/** Built once per queue batch or cron run (requests get theirs from src/middleware/database.ts). */
export function workerContext(env: Env): WorkerContext {
  return { env, db: database(env.DB) };
}

/** The context of an API-key route (its middleware has set the caller). */
export function apiContext(c: Context<HonoEnv>): DomainContext {
  return { db: c.var.db, env: c.env, caller: c.get("caller"), now: new Date() };
}

/** The context of a capture-page route: no API caller, the link's token authorises it. */
export function captureContext(c: Context<HonoEnv>): Omit<DomainContext, "caller"> {
  return { db: c.var.db, env: c.env, now: new Date() };
}
