import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { isLoopbackHost } from "../lib/host-names.ts";

/**
 * Plain HTTP is refused everywhere except on loopback hosts (local development). The scheme is the
 * request URL's own: on Workers it is the scheme the client used to reach Cloudflare, whereas an
 * `X-Forwarded-Proto` header is whatever the client chose to send.
 */
export const httpsOnly = createMiddleware<HonoEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  if (url.protocol !== "https:" && !isLoopbackHost(url.hostname)) throw new ApiError("https_required");
  await next();
});
