import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { ApiCaller, HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { modeOfKey } from "../auth/mode.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { findCallerByKeyHash } from "../storage/api-keys.ts";
import type { Right } from "../auth/rights.ts";
import { takeRateLimit, type RequestCost } from "../durable/rate-limit-client.ts";

const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{16,128}$/;

export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

/**
 * Authenticates the API key (401) and applies its rate limit (429; the `RateLimit-*` headers go on every
 * authenticated response, errors included). Returns the caller.
 */
export async function authenticateApiKey(c: Context<HonoEnv>, cost: RequestCost): Promise<ApiCaller> {
  const key = bearerToken(c.req.header("Authorization"));
  if (key === null || !KEY_PATTERN.test(key) || modeOfKey(key) === null) {
    throw new ApiError("unauthenticated", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
  }
  const caller = await findCallerByKeyHash(c.var.db, await sha256Hex(key));
  if (caller === null) {
    throw new ApiError("unauthenticated", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
  }
  c.set("caller", caller);

  const limit = await takeRateLimit(c.env.RATE_LIMIT_BUCKET, caller.keyId, caller.rateLimitPerMinute, cost);
  c.header("RateLimit-Limit", String(limit.limit));
  c.header("RateLimit-Remaining", String(limit.remaining));
  c.header("RateLimit-Reset", String(limit.resetSeconds));
  if (!limit.allowed) throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) } });
  return caller;
}

/**
 * Authenticates the API key and applies the key's rate limit, then checks the route's right (403).
 * Declared once per route by `apiRoute`.
 */
export function apiKeyAuth(right: Right | null, cost: RequestCost) {
  return createMiddleware<HonoEnv>(async (c, next) => {
    const caller = await authenticateApiKey(c, cost);
    if (right !== null && !caller.rights.includes(right)) {
      throw new ApiError("insufficient_scope", { detail: `This route needs the right \`${right}\`.` });
    }
    await next();
  });
}
