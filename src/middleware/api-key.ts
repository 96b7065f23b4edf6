import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { ApiCaller, HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { modeOfKey } from "../auth/mode.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { findCallerByKeyHash } from "../storage/api-keys.ts";
import { cachedCaller, rememberCaller, revocationCount } from "../auth/caller-cache.ts";
import type { Right } from "../auth/rights.ts";
import { takeRateLimit, type RequestCost } from "../durable/rate-limit-client.ts";

const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{16,128}$/;

export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

/** Who holds this key: this isolate's recent answer (src/auth/caller-cache.ts) or D1's. */
async function callerOfKey(c: Context<HonoEnv>, key: string): Promise<ApiCaller | null> {
  const cached = cachedCaller(key);
  if (cached !== null) return cached;
  const revocationsBefore = revocationCount();
  const caller = await findCallerByKeyHash(c.var.db, await sha256Hex(key));
  if (caller !== null) rememberCaller(key, caller, revocationsBefore);
  return caller;
}

/** Authenticates the API key (401) and sets the caller; nothing else. */
async function identifyCaller(c: Context<HonoEnv>): Promise<ApiCaller> {
  const key = bearerToken(c.req.header("Authorization"));
  if (key === null || !KEY_PATTERN.test(key) || modeOfKey(key) === null) {
    throw new ApiError("unauthenticated", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
  }
  const caller = await callerOfKey(c, key);
  if (caller === null) {
    throw new ApiError("unauthenticated", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
  }
  c.set("caller", caller);
  return caller;
}

/**
 * Waits for the rate-limit decision taken by the API-key middleware, sets the `RateLimit-*` headers (on
 * every authenticated response, errors included) and refuses with 429. A later middleware that has a
 * Durable Object call of its own (idempotency) awaits both together: one round trip instead of two.
 */
export async function settleRateLimit(c: Context<HonoEnv>): Promise<void> {
  const pending = c.get("rateLimit");
  if (pending === undefined) return;
  c.set("rateLimit", undefined);
  const limit = await pending;
  c.header("RateLimit-Limit", String(limit.limit));
  c.header("RateLimit-Remaining", String(limit.remaining));
  c.header("RateLimit-Reset", String(limit.resetSeconds));
  if (!limit.allowed) throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) } });
}

function startRateLimit(c: Context<HonoEnv>, caller: ApiCaller, cost: RequestCost): void {
  c.set("rateLimit", takeRateLimit(c.env.RATE_LIMIT_BUCKET, caller.keyId, caller.rateLimitPerMinute, cost));
}

/** Authenticates the API key (401) and applies its rate limit (429). Returns the caller. */
export async function authenticateApiKey(c: Context<HonoEnv>, cost: RequestCost): Promise<ApiCaller> {
  const caller = await identifyCaller(c);
  startRateLimit(c, caller, cost);
  await settleRateLimit(c);
  return caller;
}

/**
 * Authenticates the API key and applies the key's rate limit, then checks the route's right (403).
 * Declared once per route by `apiRoute`. With `deferRateLimit` (idempotent routes) the rate-limit call
 * is left in flight for the idempotency middleware, which must call `settleRateLimit`.
 */
export function apiKeyAuth(right: Right | null, cost: RequestCost, deferRateLimit = false) {
  return createMiddleware<HonoEnv>(async (c, next) => {
    const caller = await identifyCaller(c);
    startRateLimit(c, caller, cost);
    if (!deferRateLimit || (right !== null && !caller.rights.includes(right))) await settleRateLimit(c);
    if (right !== null && !caller.rights.includes(right)) {
      throw new ApiError("insufficient_scope", { detail: `This route needs the right \`${right}\`.` });
    }
    await next();
  });
}
