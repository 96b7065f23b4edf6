import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";

/** Two years: the HSTS preload list's minimum is one year. */
const HSTS = "max-age=63072000; includeSubDomains";

/**
 * Headers every answer carries, errors included: `nosniff` so that no browser reads a JSON or HTML
 * answer as anything else, and on HTTPS `Strict-Transport-Security` so that a browser never tries the
 * host over plain HTTP again (HSTS is ignored on plain HTTP, so loopback development is unaffected).
 */
export const securityHeaders = createMiddleware<HonoEnv>(async (c, next) => {
  await next();
  c.header("X-Content-Type-Options", "nosniff");
  if (new URL(c.req.url).protocol === "https:") c.header("Strict-Transport-Security", HSTS);
});
