import type { Context } from "hono";
import type { HonoEnv } from "../../env.ts";

/**
 * A sealed proof never changes: its public answers carry a strong ETag and may be cached for a year.
 * Anything else (pending, failed) must not be cached. Returns a 304 when the client already has it.
 */
export function immutableOrNotModified(c: Context<HonoEnv>, sealed: boolean, etag: string | null): Response | null {
  if (!sealed || etag === null) {
    c.header("Cache-Control", "no-store");
    return null;
  }
  const quoted = `"${etag}"`;
  c.header("ETag", quoted);
  c.header("Cache-Control", "public, max-age=31536000, immutable");
  if (c.req.header("If-None-Match")?.split(",").some((tag) => tag.trim() === quoted)) return c.body(null, 304);
  return null;
}
