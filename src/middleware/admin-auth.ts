import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { timingSafeEqualStrings } from "../lib/crypto.ts";
import { bearerToken } from "./api-key.ts";

/** Operator routes: `Authorization: Bearer <ADMIN_TOKEN>`; without a configured token they do not exist. */
export const adminAuth = createMiddleware<HonoEnv>(async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) throw new ApiError("not_found");
  const token = bearerToken(c.req.header("Authorization"));
  if (token === null || !(await timingSafeEqualStrings(token, expected))) throw new ApiError("unauthenticated");
  await next();
});
