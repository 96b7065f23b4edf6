import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

/**
 * Above the largest valid JSON body (a template of 20 steps in 20 languages at the longest texts is
 * about 5 MB) and far below a Worker's memory: a bigger JSON body is refused before it is parsed,
 * chunked or not. Files (uploads, verify by file, logos) are not JSON and keep their own limits.
 */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

const limit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw new ApiError("payload_too_large");
  },
});

export const jsonBodyLimit: MiddlewareHandler<HonoEnv> = async (c, next) => {
  if (!(c.req.header("Content-Type") ?? "").toLowerCase().includes("json")) return next();
  return limit(c, next);
};
