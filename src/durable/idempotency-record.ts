import { DurableObject } from "cloudflare:workers";

/** What a request needs to know about an earlier one with the same Idempotency-Key in its organization and mode. */
export type IdempotencyDecision =
  | { kind: "run"; attempt: string }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "replay"; status: number; body: string; headers: Record<string, string> };

type Stored =
  | { state: "started"; attempt: string; bodyHash: string; startedAt: number }
  | { state: "done"; bodyHash: string; status: number; body: string; headers: Record<string, string> };

/** Records are kept 24 hours (the specification says 1 h in one place and 24 h in another; see ADR 0004). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A request still "started" after this long belongs to a Worker that died: let a retry run it. */
const STALE_START_MS = 60_000;

/**
 * One instance per (organization, mode, Idempotency-Key). The Durable Object serialises concurrent
 * requests, so exactly one runs the operation; the others wait for its stored answer or get
 * `request_in_progress`. Each run is an `attempt`: only the attempt that holds the record may store or
 * forget it, so a Worker that outlived its stale record cannot overwrite the retry that replaced it.
 */
export class IdempotencyRecord extends DurableObject {
  begin(bodyHash: string, nowMs: number = Date.now()): IdempotencyDecision {
    const stored = this.ctx.storage.kv.get<Stored>("record");
    if (stored?.state === "done") {
      if (stored.bodyHash !== bodyHash) return { kind: "mismatch" };
      return { kind: "replay", status: stored.status, body: stored.body, headers: stored.headers };
    }
    // Whatever its body, a request still running may yet be refused and forgotten: the caller retries later.
    if (stored?.state === "started" && nowMs - stored.startedAt < STALE_START_MS) return { kind: "in_progress", retryAfterSeconds: 1 };
    const attempt = crypto.randomUUID();
    this.ctx.storage.kv.put("record", { state: "started", attempt, bodyHash, startedAt: nowMs } satisfies Stored);
    void this.ctx.storage.setAlarm(nowMs + RETENTION_MS);
    return { kind: "run", attempt };
  }

  /** The operation ran: its answer is what every later request with this key gets. */
  finish(attempt: string, bodyHash: string, status: number, body: string, headers: Record<string, string>): void {
    if (!this.holds(attempt)) return;
    this.ctx.storage.kv.put("record", { state: "done", bodyHash, status, body, headers } satisfies Stored);
  }

  /** The operation did not run (refused before it) or failed unexpectedly (5xx): a retry may run it. */
  release(attempt: string): void {
    if (this.holds(attempt)) this.ctx.storage.kv.delete("record");
  }

  private holds(attempt: string): boolean {
    const stored = this.ctx.storage.kv.get<Stored>("record");
    return stored?.state === "started" && stored.attempt === attempt;
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
