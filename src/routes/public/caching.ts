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

/**
 * Serves a sealed proof's public answer from the edge cache when it is there, and stores it there
 * otherwise: it never changes, so every location can keep it for as long as it likes.
 */
export async function fromEdgeCache(c: Context<HonoEnv>, sealed: boolean, produce: () => Promise<Response>): Promise<Response> {
  if (!sealed || c.req.header("If-None-Match")) return produce();
  const key = new Request(c.req.url, { method: "GET" });
  const hit = await caches.default.match(key);
  if (hit) return hit;
  const response = await produce();
  if (response.status === 200) c.executionCtx.waitUntil(caches.default.put(key, response.clone()));
  return response;
}
