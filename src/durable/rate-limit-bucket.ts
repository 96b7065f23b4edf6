import { DurableObject } from "cloudflare:workers";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the full limit is available again. */
  resetSeconds: number;
}

const MINUTE_MS = 60_000;
/** How long a counted unit may wait before it is written (what a restart can forget). */
export const PERSIST_DELAY_MS = 1_000;

/**
 * One instance per API key (or other bucket, e.g. test events per endpoint): an exact fixed window, serialised by the Durable Object, so the
 * 61st unit of a minute is refused whichever location the requests hit (see docs/adr/0002).
 */
export class RateLimitBucket extends DurableObject {
  /**
   * The window as this instance counts it. A Durable Object is one instance at a time, so counting in
   * memory is exact; storage only carries the count over a restart. The count is written at most once per
   * `PERSIST_DELAY_MS`, after the answer and without holding it (allowUnconfirmed): a storage write per
   * request was half of an authenticated request's cost. A restart (a deploy, a failed write) forgets at
   * most the units of that last second; idling never does, as an idle object is evicted only after the
   * window has ended (docs/adr/0002).
   */
  private window: { start: number; used: number } | undefined;
  private persistScheduled = false;

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
    this.persistSoon();
    return { allowed: true, limit, remaining: limit - window.used, resetSeconds };
  }

  /** Writes the window as it then is, once for all the requests of the next `PERSIST_DELAY_MS`. */
  private persistSoon(): void {
    if (this.persistScheduled) return;
    this.persistScheduled = true;
    setTimeout(() => {
      this.persistScheduled = false;
      const window = this.window;
      if (window !== undefined) void this.ctx.storage.put({ windowStart: window.start, used: window.used }, { allowUnconfirmed: true });
    }, PERSIST_DELAY_MS);
  }
}
