import type { Env } from "../env.ts";
import { isLoopbackHost } from "../lib/host-names.ts";

/** After a failed attempt: 1 min, 5 min, 30 min, 2 h, 12 h (the specification's five retries), then abandoned. */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 43200] as const;

/** The delay before the next attempt after `attempts` attempts, or null when the delivery is abandoned. */
export function webhookRetryDelay(env: Env, attempts: number): number | null {
  const delay = WEBHOOK_RETRY_DELAYS_SECONDS[attempts - 1];
  if (delay === undefined) return null;
  return Math.max(1, Math.round(delay / retryScale(env)));
}

/** WEBHOOK_RETRY_SCALE shortens the schedule for local tests only; it is ignored unless the API is on loopback. */
function retryScale(env: Env): number {
  const scale = Number(env.WEBHOOK_RETRY_SCALE ?? "1");
  return isLoopbackHost(new URL(env.API_BASE_URL).hostname) && scale > 0 ? scale : 1;
}
