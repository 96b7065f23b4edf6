import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.startsWith("127.") || hostname.endsWith(".localhost");
}

/** Plain HTTP is refused everywhere except on loopback hosts (local development). */
export const httpsOnly = createMiddleware<HonoEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  const forwardedProto = c.req.header("X-Forwarded-Proto");
  const isHttps = url.protocol === "https:" || forwardedProto === "https";
  if (!isHttps && !isLoopbackHost(url.hostname)) throw new ApiError("https_required");
  await next();
});
