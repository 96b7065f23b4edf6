import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

/**
 * The only hosts that count as loopback, written exactly (URL.hostname brackets IPv6). A prefix such as
 * `127.` would let `127.evil.example`, a public name, pass as local.
 */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

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
