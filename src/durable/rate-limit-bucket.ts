import { DurableObject } from "cloudflare:workers";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the full limit is available again. */
  resetSeconds: number;
}

const MINUTE_MS = 60_000;

/**
 * One instance per API key (or other bucket, e.g. test events per endpoint): an exact fixed window, serialised by the Durable Object, so the
 * 61st unit of a minute is refused whichever location the requests hit (see docs/adr/0002).
 */
export class RateLimitBucket extends DurableObject {
  take(cost: number, limit: number, nowMs: number = Date.now(), windowMs: number = MINUTE_MS): RateLimitDecision {
    const storage = this.ctx.storage.kv;
    let windowStart = storage.get<number>("windowStart") ?? 0;
    let used = storage.get<number>("used") ?? 0;
    if (nowMs - windowStart >= windowMs) {
      windowStart = nowMs;
      used = 0;
    }
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000));
    if (used + cost > limit) {
      return { allowed: false, limit, remaining: Math.max(0, limit - used), resetSeconds };
    }
    used += cost;
    storage.put("windowStart", windowStart);
    storage.put("used", used);
    return { allowed: true, limit, remaining: limit - used, resetSeconds };
  }
}
