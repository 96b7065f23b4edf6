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
  /**
   * The window as this instance counts it. A Durable Object is one instance at a time, so counting in
   * memory is exact; storage only carries the count over a restart. Its writes do not hold the answer
   * back (allowUnconfirmed): the answer is a decision already taken, and the rare failed write resets the
   * object, which forgets at most the units of that moment (docs/adr/0002).
   */
  private window: { start: number; used: number } | undefined;

  take(cost: number, limit: number, nowMs: number = Date.now(), windowMs: number = MINUTE_MS): RateLimitDecision {
    const storage = this.ctx.storage.kv;
    this.window ??= { start: storage.get<number>("windowStart") ?? 0, used: storage.get<number>("used") ?? 0 };
    const window = this.window;
    if (nowMs - window.start >= windowMs) {
      window.start = nowMs;
      window.used = 0;
    }
    const resetSeconds = Math.max(1, Math.ceil((window.start + windowMs - nowMs) / 1000));
    if (window.used + cost > limit) {
      return { allowed: false, limit, remaining: Math.max(0, limit - window.used), resetSeconds };
    }
    window.used += cost;
    void this.ctx.storage.put({ windowStart: window.start, used: window.used }, { allowUnconfirmed: true });
    return { allowed: true, limit, remaining: limit - window.used, resetSeconds };
  }
}
