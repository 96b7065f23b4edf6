export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the full limit is available again. */
  resetSeconds: number;
}

export interface WindowState {
  windowStart: number;
  used: number;
}

/** How long a counted unit may wait before it is written (what a restart can forget). */
export const PERSIST_DELAY_MS = 1_000;

/**
 * An exact fixed window, counted in memory by the Durable Object that holds it (one instance at a time,
 * so exact: the 61st unit of a minute is refused whichever location the requests come from; ADR 0031).
 * Storage only carries the count over a restart: it is written at most once per `PERSIST_DELAY_MS`, after
 * the answer and without holding it. A restart (a deploy, a failed write) forgets at most the units of
 * that last second; idling never does, as an object leaves memory only after seconds without requests
 * and never with a timer pending.
 */
export class FixedWindow {
  private state: WindowState | undefined;
  private persistScheduled = false;
  private readonly read: () => WindowState | undefined;
  private readonly write: (state: WindowState) => void;

  /** `read` gives the stored window (once, at the first take); `write` stores it without awaiting. */
  constructor(read: () => WindowState | undefined, write: (state: WindowState) => void) {
    this.read = read;
    this.write = write;
  }

  take(cost: number, limit: number, nowMs: number, windowMs: number): RateLimitDecision {
    this.state ??= this.read() ?? { windowStart: 0, used: 0 };
    const state = this.state;
    if (nowMs - state.windowStart >= windowMs) {
      state.windowStart = nowMs;
      state.used = 0;
    }
    const resetSeconds = Math.max(1, Math.ceil((state.windowStart + windowMs - nowMs) / 1000));
    if (state.used + cost > limit) {
      return { allowed: false, limit, remaining: Math.max(0, limit - state.used), resetSeconds };
    }
    state.used += cost;
    this.persistSoon();
    return { allowed: true, limit, remaining: limit - state.used, resetSeconds };
  }

  /** Writes the window as it then is, once for all the requests of the next `PERSIST_DELAY_MS`. */
  private persistSoon(): void {
    if (this.persistScheduled) return;
    this.persistScheduled = true;
    setTimeout(() => {
      this.persistScheduled = false;
      if (this.state !== undefined) this.write({ ...this.state });
    }, PERSIST_DELAY_MS);
  }
}
