import { DurableObject } from "cloudflare:workers";

/** What a request needs to know about an earlier one with the same API key and Idempotency-Key. */
export type IdempotencyDecision =
  | { kind: "run" }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "replay"; status: number; body: string; headers: Record<string, string> };

type Stored =
  | { state: "started"; bodyHash: string; startedAt: number }
  | { state: "done"; bodyHash: string; status: number; body: string; headers: Record<string, string> };

/** Records are kept 24 hours (the specification says 1 h in one place and 24 h in another; see ADR 0004). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A request still "started" after this long belongs to a Worker that died: let a retry run it. */
const STALE_START_MS = 60_000;

/**
 * One instance per (API key, Idempotency-Key). The Durable Object serialises concurrent requests, so
 * exactly one runs the operation; the others wait for its stored answer or get `request_in_progress`.
 */
export class IdempotencyRecord extends DurableObject {
  begin(bodyHash: string, nowMs: number = Date.now()): IdempotencyDecision {
    const stored = this.ctx.storage.kv.get<Stored>("record");
    if (stored !== undefined && stored.bodyHash !== bodyHash) return { kind: "mismatch" };
    if (stored?.state === "done") return { kind: "replay", status: stored.status, body: stored.body, headers: stored.headers };
    if (stored?.state === "started" && nowMs - stored.startedAt < STALE_START_MS) return { kind: "in_progress", retryAfterSeconds: 1 };
    this.ctx.storage.kv.put("record", { state: "started", bodyHash, startedAt: nowMs } satisfies Stored);
    void this.ctx.storage.setAlarm(nowMs + RETENTION_MS);
    return { kind: "run" };
  }

  finish(bodyHash: string, status: number, body: string, headers: Record<string, string>): void {
    this.ctx.storage.kv.put("record", { state: "done", bodyHash, status, body, headers } satisfies Stored);
  }

  /** The operation failed unexpectedly (5xx): forget it so that a retry can run it. */
  release(): void {
    this.ctx.storage.kv.delete("record");
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
