import { randomBytes } from "node:crypto";
import { obtainTimestamp } from "./obtain-timestamp.ts";
import type { TimestampAuthority } from "./authority.ts";

export interface TsaHealth {
  status: "ok" | "error";
  latency_ms: number;
  /** When the authority was last really asked: answers within the cache's lifetime repeat that check. */
  checked_at: string;
  message?: string;
}

/** A live authority's timestamps are paid for: supervision polling more often sees the last result. */
export const TSA_HEALTH_CACHE_MS = 5 * 60_000;
/** A failure is checked again sooner, so that a recovered authority shows within a minute. */
export const TSA_HEALTH_ERROR_CACHE_MS = 60_000;

/**
 * The authority's health, checked with one real timestamp request at most every few minutes; concurrent
 * callers share the check in flight.
 */
export function tsaHealthCheck(authority: TimestampAuthority, now: () => number = Date.now): () => Promise<TsaHealth> {
  let last: { health: TsaHealth; at: number } | null = null;
  let inFlight: Promise<TsaHealth> | null = null;
  const check = async (): Promise<TsaHealth> => {
    const started = performance.now();
    const checkedAt = new Date(now()).toISOString();
    try {
      await obtainTimestamp(authority, randomBytes(16));
      return { status: "ok", latency_ms: Math.round(performance.now() - started), checked_at: checkedAt };
    } catch (error) {
      return { status: "error", latency_ms: Math.round(performance.now() - started), checked_at: checkedAt, message: (error as Error).message };
    }
  };
  return async () => {
    if (last !== null && now() - last.at < (last.health.status === "ok" ? TSA_HEALTH_CACHE_MS : TSA_HEALTH_ERROR_CACHE_MS)) return last.health;
    inFlight ??= check().then((health) => {
      last = { health, at: now() };
      inFlight = null;
      return health;
    });
    return inFlight;
  };
}
