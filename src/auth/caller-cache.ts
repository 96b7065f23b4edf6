import type { ApiCaller } from "../env.ts";
import { boundedCache } from "../../shared/bounded-cache.ts";

/**
 * Verified API keys, remembered by this isolate for a few seconds so that an integrator's steady traffic
 * does not pay a D1 round trip (cross-region for most callers) before every request.
 *
 * Staleness is bounded: an entry is trusted for at most `CALLER_CACHE_TTL_MS` after D1 was asked for it
 * (not after its answer arrived, which may be long after D1 read the row).
 * A revocation made through the operator API evicts the entry of the isolate that handled it at once;
 * other isolates stop accepting the key within `CALLER_CACHE_TTL_MS` (README, "What a request costs").
 * Unknown and revoked keys are never cached, so a new key works at once and a wrong one always asks D1.
 *
 * Entries are found by the key itself, which the request already holds in memory: hashing it (an
 * asynchronous digest) before every lookup cost more than the rest of the lookup; D1 is still asked by
 * hash only.
 */
export const CALLER_CACHE_TTL_MS = 10_000;

/** 1,000: enough for every active key an isolate serves, the oldest dropped beyond; each until its expiry (below). */
const entries = boundedCache<string, ApiCaller>({ maxEntries: 1_000, ttlMs: CALLER_CACHE_TTL_MS });
/** Counts revocations seen by this isolate: a D1 answer read before one of them is not remembered. */
let revocations = 0;

export function cachedCaller(key: string, nowMs: number = Date.now()): ApiCaller | null {
  return entries.get(key, nowMs) ?? null;
}

/** Taken before asking D1, handed back to `rememberCaller` with the answer. */
export function revocationCount(): number {
  return revocations;
}

/**
 * Remembers D1's answer for `key` until `CALLER_CACHE_TTL_MS` after `askedAtMs` (when D1 was asked),
 * unless a revocation happened in this isolate since `revocationsBefore` was taken: that answer may
 * predate it, and remembering it would undo the revocation for 10 seconds.
 */
export function rememberCaller(key: string, caller: ApiCaller, revocationsBefore: number, askedAtMs: number): void {
  if (revocationsBefore !== revocations) return;
  entries.set(key, caller, { nowMs: askedAtMs });
}

/** Forgets a key in this isolate (its revocation): the next request with it asks D1. */
export function forgetCallerKey(keyId: string): void {
  revocations++;
  entries.deleteWhere((caller) => caller.keyId === keyId);
}
