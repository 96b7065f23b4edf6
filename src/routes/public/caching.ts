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
  return taggedOrNotModified(c, etag, "public, max-age=31536000, immutable");
}

/**
 * A sealed proof's answer that still changes when its evidence record is renewed (docs/adr/0022) or, for the
 * public JSON, when a re-hash of its stored objects is recorded (docs/adr/0037): the public JSON and the
 * package. Browsers keep it one minute, the sweeps' interval, so that an altered verdict shows at the next
 * re-hash, and revalidate with the ETag, which names the renewal and the re-hash: never hidden behind a 304.
 */
export function renewableOrNotModified(c: Context<HonoEnv>, sealed: boolean, etag: string | null): Response | null {
  if (!sealed || etag === null) return immutableOrNotModified(c, false, null);
  return taggedOrNotModified(c, etag, "public, max-age=60");
}

/**
 * Sets the strong ETag and how long it may be kept; a 304 when the client's If-None-Match names that ETag, by
 * the weak comparison RFC 9110 (13.1.2) asks of If-None-Match (`W/` ignored), or is `*`: the answer exists.
 */
function taggedOrNotModified(c: Context<HonoEnv>, etag: string, cacheControl: string): Response | null {
  const quoted = `"${etag}"`;
  c.header("ETag", quoted);
  c.header("Cache-Control", cacheControl);
  const known = c.req.header("If-None-Match")?.split(",") ?? [];
  return known.some((tag) => ["*", quoted].includes(tag.trim().replace(/^W\//, ""))) ? c.body(null, 304) : null;
}

/**
 * Serves a sealed proof's public answer from the edge cache when it is there, and stores it there
 * otherwise: the same `version` (the proof's evidence renewal) never changes, so every location can keep
 * it for as long as it likes; a renewal is a new key.
 */
export async function fromEdgeCache(c: Context<HonoEnv>, sealed: boolean, produce: () => Promise<Response>, version = ""): Promise<Response> {
  if (!sealed || c.req.header("If-None-Match")) return produce();
  const key = new Request(version === "" ? c.req.url : `${c.req.url}${c.req.url.includes("?") ? "&" : "?"}evidence=${encodeURIComponent(version)}`, {
    method: "GET",
  });
  const hit = await caches.default.match(key);
  if (hit) return hit;
  const response = await produce();
  if (response.status === 200) c.executionCtx.waitUntil(caches.default.put(key, response.clone()));
  return response;
}
