import { DurableObject } from "cloudflare:workers";
import { FixedWindow, type RateLimitDecision } from "./fixed-window.ts";

export { PERSIST_DELAY_MS, type RateLimitDecision } from "./fixed-window.ts";

const MINUTE_MS = 60_000;

/**
 * One instance per bucket that is not an API key's (public verification per client, test events and
 * manual retries per endpoint): an exact fixed window, serialised by the Durable Object (docs/adr/0031).
 * API keys are counted by their account's object (src/durable/api-account.ts).
 */
export class RateLimitBucket extends DurableObject {
  private readonly window = new FixedWindow(
    () => {
      const used = this.ctx.storage.kv.get<number>("used");
      return used === undefined ? undefined : { windowStart: this.ctx.storage.kv.get<number>("windowStart") ?? 0, used };
    },
    (state) => void this.ctx.storage.put({ windowStart: state.windowStart, used: state.used }, { allowUnconfirmed: true }),
  );

  take(cost: number, limit: number, nowMs: number = Date.now(), windowMs: number = MINUTE_MS): RateLimitDecision {
    return this.window.take(cost, limit, nowMs, windowMs);
  }
}
