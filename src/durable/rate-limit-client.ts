import type { RateLimitBucket, RateLimitDecision } from "./rate-limit-bucket.ts";
import { namedStub } from "./named-stub.ts";

/** A read costs 1, a call that creates something 2 (CONTRACT.md). */
export type RequestCost = "read" | "write";
const COST_UNITS: Record<RequestCost, number> = { read: 1, write: 2 };

export function costUnits(cost: RequestCost): number {
  return COST_UNITS[cost];
}

export function takeRateLimit(
  namespace: DurableObjectNamespace<RateLimitBucket>,
  bucketName: string,
  limitPerMinute: number,
  cost: RequestCost,
  windowMs?: number,
): Promise<RateLimitDecision> {
  const stub = namedStub(namespace, bucketName);
  return stub.take(COST_UNITS[cost], limitPerMinute, Date.now(), windowMs) as Promise<RateLimitDecision>;
}
