import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { ApiCaller, HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { modeOfKey } from "../auth/mode.ts";
import { shardOfKey } from "../auth/key-layout.ts";
import { database, type Database } from "../db/client.ts";
import { shardBinding } from "../db/shards.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { findCallerByKeyHash } from "../storage/api-keys.ts";
import { cachedCaller, rememberCaller, revocationCount } from "../auth/caller-cache.ts";
import type { Right } from "../auth/rights.ts";
import { costUnits, type RequestCost } from "../durable/rate-limit-client.ts";
import { apiAccountName, type ApiAccount, type RateLimitCharge } from "../durable/api-account.ts";
import type { RateLimitDecision } from "../durable/fixed-window.ts";
import { namedStub } from "../durable/named-stub.ts";

const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{16,128}$/;

export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

/**
 * Who holds this key, and the database of the shard it names (src/auth/key-layout.ts): this isolate's
 * recent answer (src/auth/caller-cache.ts) or that shard's. A key naming a shard this deployment does not
 * have is unknown like any other (401), never an error.
 */
async function callerOfKey(c: Context<HonoEnv>, key: string): Promise<{ caller: ApiCaller; db: Database } | null> {
  const binding = shardBinding(c.env, shardOfKey(key));
  if (binding === undefined) return null;
  const db = database(binding);
  const cached = cachedCaller(key);
  if (cached !== null) return { caller: cached, db };
  // Both taken before D1 is asked: its answer may predate a revocation by as long as it takes to arrive.
  const askedAt = Date.now();
  const revocationsBefore = revocationCount();
  const caller = await findCallerByKeyHash(db, await sha256Hex(key));
  if (caller === null) return null;
  rememberCaller(key, caller, revocationsBefore, askedAt);
  return { caller, db };
}

/**
 * Authenticates the API key (401) and sets the caller, and the database of its organization's shard as
 * `c.var.db` for the rest of the request: every authenticated route reads and writes that shard.
 */
async function identifyCaller(c: Context<HonoEnv>): Promise<ApiCaller> {
  const key = bearerToken(c.req.header("Authorization"));
  if (key === null || !KEY_PATTERN.test(key) || modeOfKey(key) === null) {
    throw new ApiError("unauthenticated", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
  }
  const found = await callerOfKey(c, key);
  if (found === null) {
    throw new ApiError("unauthenticated", { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
  }
  c.set("caller", found.caller);
  c.set("db", found.db);
  return found.caller;
}

/** The account's Durable Object: its keys' rate limits and its Idempotency-Keys (src/durable/api-account.ts). */
export function apiAccountOf(c: Context<HonoEnv>, caller: ApiCaller): DurableObjectStub<ApiAccount> {
  return namedStub(c.env.API_ACCOUNT, apiAccountName(caller));
}

export function rateLimitCharge(caller: ApiCaller, cost: RequestCost): RateLimitCharge {
  return { keyId: caller.keyId, units: costUnits(cost), limitPerMinute: caller.rateLimitPerMinute };
}

/** Sets the `RateLimit-*` headers (on every authenticated response, errors included) and refuses with 429. */
export function applyRateLimit(c: Context<HonoEnv>, limit: RateLimitDecision): void {
  c.header("RateLimit-Limit", String(limit.limit));
  c.header("RateLimit-Remaining", String(limit.remaining));
  c.header("RateLimit-Reset", String(limit.resetSeconds));
  if (!limit.allowed) throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) } });
}

/**
 * Applies the request's rate limit if it is not applied yet: the decision in flight, or the charge an
 * idempotent route left for its record's call (made alone here, when the request is refused before it).
 */
export async function settleRateLimit(c: Context<HonoEnv>): Promise<void> {
  const charge = c.get("rateLimitCharge");
  if (charge !== undefined) {
    c.set("rateLimitCharge", undefined);
    c.set("rateLimit", apiAccountOf(c, c.get("caller")).take(charge) as Promise<RateLimitDecision>);
  }
  const pending = c.get("rateLimit");
  if (pending === undefined) return;
  c.set("rateLimit", undefined);
  applyRateLimit(c, await pending);
}

function startRateLimit(c: Context<HonoEnv>, caller: ApiCaller, cost: RequestCost): void {
  c.set("rateLimit", apiAccountOf(c, caller).take(rateLimitCharge(caller, cost)) as Promise<RateLimitDecision>);
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
 * Declared once per route by `apiRoute`. With `deferRateLimit` (idempotent routes) the charge is left to
 * the idempotency middleware, which makes it in the same Durable Object call as its record's (one round
 * trip) and must call `settleRateLimit` if it refuses first.
 */
export function apiKeyAuth(right: Right | null, cost: RequestCost, deferRateLimit = false) {
  return createMiddleware<HonoEnv>(async (c, next) => {
    const caller = await identifyCaller(c);
    const missingRight = right !== null && !caller.rights.includes(right);
    if (deferRateLimit && !missingRight) c.set("rateLimitCharge", rateLimitCharge(caller, cost));
    else {
      startRateLimit(c, caller, cost);
      await settleRateLimit(c);
    }
    if (missingRight) throw new ApiError("insufficient_scope", { detail: `This route needs the right \`${right}\`.` });
    await next();
  });
}
