import type { Context } from "hono";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { problemResponse } from "../errors/problem.ts";
import { authenticateApiKey } from "./api-key.ts";

/**
 * The answer to a path no route serves (404 `not_found`) or a method it does not take (405
 * `method_not_allowed` with `Allow`). Called with a valid API key it is still an authenticated call:
 * counted as a read against the key's rate limit and answered with the `RateLimit-*` headers (429 when
 * over), so probing unknown paths is neither free nor unlimited. Without a valid key it stays a 404/405:
 * there is no route to authenticate for.
 */
export async function answerUnmatchedRoute(c: Context<HonoEnv>, allowedMethods: string[]): Promise<Response> {
  try {
    await authenticateApiKey(c, "read");
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code !== "unauthenticated") return problemResponse(c, error);
  }
  if (allowedMethods.length > 0) {
    return problemResponse(c, new ApiError("method_not_allowed", { headers: { Allow: allowedMethods.join(", ") } }));
  }
  return problemResponse(c, new ApiError("not_found"));
}
