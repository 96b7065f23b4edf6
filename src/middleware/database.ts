import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import type { HonoEnv } from "../env.ts";

/** The request's database client, built once here and read by every route as `c.var.db`. */
export const databaseContext = createMiddleware<HonoEnv>(async (c, next) => {
  c.set("db", database(c.env.DB));
  await next();
});
