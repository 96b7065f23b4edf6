import type { ApiCaller } from "../env.ts";

/**
 * Verified API keys, remembered by this isolate for a few seconds so that an integrator's steady traffic
 * does not pay a D1 round trip (cross-region for most callers) before every request.
 *
 * Staleness is bounded: an entry is trusted for at most `CALLER_CACHE_TTL_MS` after it was read from D1.
 * A revocation made through the operator API evicts the entry of the isolate that handled it at once;
 * other isolates stop accepting the key within `CALLER_CACHE_TTL_MS` (README, "What a request costs").
 * Unknown and revoked keys are never cached, so a new key works at once and a wrong one always asks D1.
 */
export const CALLER_CACHE_TTL_MS = 10_000;
/** Enough for every active key an isolate serves; the oldest entry is dropped beyond it. */
const MAX_ENTRIES = 1_000;

const entries = new Map<string, { caller: ApiCaller; expiresAt: number }>();

export function cachedCaller(keyHash: string, nowMs: number = Date.now()): ApiCaller | null {
  const entry = entries.get(keyHash);
  if (entry === undefined) return null;
  if (entry.expiresAt <= nowMs) {
    entries.delete(keyHash);
    return null;
  }
  return entry.caller;
}

export function rememberCaller(keyHash: string, caller: ApiCaller, nowMs: number = Date.now()): void {
  entries.delete(keyHash);
  if (entries.size >= MAX_ENTRIES) {
    const oldest = entries.keys().next().value;
    if (oldest !== undefined) entries.delete(oldest);
  }
  entries.set(keyHash, { caller, expiresAt: nowMs + CALLER_CACHE_TTL_MS });
}

/** Forgets a key in this isolate (its revocation): the next request with it asks D1. */
export function forgetCallerKey(keyId: string): void {
  for (const [hash, entry] of entries) if (entry.caller.keyId === keyId) entries.delete(hash);
}
