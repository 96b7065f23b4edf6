import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.ts";
import type { ShardCode } from "../db/shards.ts";
import { type AccountCreation, adjustBalanceWithinAccount, insertSessionWithinAccountBalance } from "../billing/account-balance.ts";
import type { SessionCreation, SessionToInsert } from "../storage/capture-sessions.ts";
import { FixedWindow, type RateLimitDecision } from "./fixed-window.ts";

/**
 * What a request needs to know about an earlier one with the same Idempotency-Key in its organization and
 * mode. A run that `resumed` took over a stale start: the attempt before it may have done its work and died
 * before storing the answer, which the route's own record then holds (ADR 0046).
 */
export type IdempotencyDecision =
  | { kind: "run"; attempt: string; resumed: boolean }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "replay"; status: number; body: string; headers: Record<string, string> };

/** Records are kept 24 hours (the specification says 1 h in one place and 24 h in another; see ADR 0032). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A balance decision running longer than this is hung; `blockConcurrencyWhile`'s own limit. */
const HUNG_DECISION_MS = 30_000;
/** A request still "started" after this long belongs to a Worker that died: let a retry run it. */
const STALE_START_MS = 60_000;

/** What one API-key request costs its key: `units` of its `limitPerMinute` (CONTRACT.md: a read 1, a creation 2). */
export interface RateLimitCharge {
  keyId: string;
  units: number;
  limitPerMinute: number;
}

const MINUTE_MS = 60_000;
/** How long an answer waits for others to be written with it (after the caller's answer left: nobody waits). */
const ANSWER_WRITE_DELAY_MS = 10;

interface PendingAnswer {
  key: string;
  attempt: string;
  bodyHash: string;
  status: number;
  body: string;
  headers: string;
  written: () => void;
}

/** The object of an organization's keys in one mode: every key of it shares its Idempotency-Keys (Stripe scopes them per account). */
export function apiAccountName(caller: { organizationId: string; mode: string }): string {
  return `${caller.organizationId}:${caller.mode}`;
}

interface PendingStart {
  key: string;
  bodyHash: string;
  startedAt: number;
  decided: (decision: IdempotencyDecision) => void;
}

interface Row extends Record<string, SqlStorageValue> {
  state: "started" | "done";
  attempt: string | null;
  started_at: number;
  body_hash: string;
  status: number | null;
  body: string | null;
  headers: string | null;
}

/**
 * Claims a key for a new attempt (?1 key, ?2 attempt, ?3 body hash, ?4 now, ?5 retention): inserted, or
 * written over a record whose 24 hours are over; returns a row only then. A record that is still live (a
 * stored answer, a start) is left untouched; a stale start is taken over by `RESUME_STALE_START`.
 */
const CLAIM_RECORD = `INSERT INTO records (key, state, attempt, body_hash, started_at, status, body, headers) VALUES (?1, 'started', ?2, ?3, ?4, NULL, NULL, NULL)
  ON CONFLICT (key) DO UPDATE SET state = 'started', attempt = excluded.attempt, body_hash = excluded.body_hash, started_at = excluded.started_at, status = NULL, body = NULL, headers = NULL
  WHERE ?4 - records.started_at >= ?5
  RETURNING 1`;

/** A start left by a Worker that died (?1 key, ?2 new attempt, ?3 body hash, ?4 now, ?5 the dead attempt). */
const RESUME_STALE_START = "UPDATE records SET attempt = ?2, body_hash = ?3, started_at = ?4 WHERE key = ?1 AND state = 'started' AND attempt = ?5";

/**
 * One instance per API account (organization and mode): the rate-limit windows of its keys and the
 * records of its Idempotency-Keys, so that a creation checks both in one call (one round trip).
 *
 * Rate limits: each key has its own exact fixed window, counted in memory (one instance at a time) and
 * written at most once a second (src/durable/fixed-window.ts, docs/adr/0031). An account's requests all
 * pass through its one object, which answers an in-memory count in microseconds: far more requests than
 * the per-key limits allow a normal account.
 *
 * Idempotency: a Durable Object serialises concurrent requests, so exactly one runs the operation; the
 * others wait for its stored answer or get `request_in_progress`. Each run is an `attempt`: only the
 * attempt that holds the record may store or forget it, so a Worker that outlived its stale record cannot
 * overwrite the retry that replaced it. Records are per account rather than per key because a new
 * Durable Object per request is the slowest Durable Object call there is, and every creation used a new
 * key; an account's object is warm after its first request (docs/adr/0032).
 *
 * Balance: the live account's object of an organization with write shards decides its live creations and
 * debits, one at a time (src/billing/account-balance.ts, docs/adr/0070).
 */
export class ApiAccount extends DurableObject<Env> {
  private tableReady = false;
  /** Whether this instance has set the expiry alarm, or found it set. */
  private expiryScheduled = false;
  private readonly windows = new Map<string, FixedWindow>();
  private pendingAnswers: PendingAnswer[] = [];
  private pendingStarts: PendingStart[] = [];

  /** The object's SQLite, its table made on first use. */
  private get sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.tableReady) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, state TEXT NOT NULL, attempt TEXT, body_hash TEXT NOT NULL, started_at INTEGER NOT NULL, status INTEGER, body TEXT, headers TEXT)",
      );
      sql.exec("CREATE INDEX IF NOT EXISTS records_started_at ON records (started_at)");
      sql.exec("CREATE TABLE IF NOT EXISTS balance_decision (id INTEGER PRIMARY KEY CHECK (id = 1), settled_after INTEGER NOT NULL)");
      this.tableReady = true;
    }
    return sql;
  }

  /** Charges a request to its key's rate limit. */
  take(charge: RateLimitCharge, nowMs: number = Date.now()): RateLimitDecision {
    let window = this.windows.get(charge.keyId);
    if (window === undefined) {
      const storageKey = `rate:${charge.keyId}`;
      window = new FixedWindow(
        () => this.ctx.storage.kv.get(storageKey),
        (state) => void this.ctx.storage.put(storageKey, state, { allowUnconfirmed: true }),
      );
      this.windows.set(charge.keyId, window);
    }
    return window.take(charge.units, charge.limitPerMinute, nowMs, MINUTE_MS);
  }

  /**
   * An idempotent request: its rate limit, then (if allowed) its record. A request the rate limit refuses
   * touches no record, so the key stays free for its retry.
   */
  async begin(
    key: string,
    bodyHash: string,
    charge: RateLimitCharge | null,
    nowMs: number = Date.now(),
  ): Promise<{ limit: RateLimitDecision | null; decision: IdempotencyDecision | null }> {
    const limit = charge === null ? null : this.take(charge, nowMs);
    return { limit, decision: limit === null || limit.allowed ? await this.beginRecord(key, bodyHash, nowMs) : null };
  }

  /**
   * Decided, in arrival order, with the records begun together, which are written in one transaction (a
   * commit each was as costly as the call). A "run" is answered only once its "started" record is
   * committed (the output gate holds the answer), so that no restart can forget a creation about to run.
   */
  private beginRecord(key: string, bodyHash: string, nowMs: number): Promise<IdempotencyDecision> {
    return new Promise((decided) => {
      this.pendingStarts.push({ key, bodyHash, startedAt: nowMs, decided });
      if (this.pendingStarts.length === 1) setTimeout(() => this.writePendingStarts(), 0);
    });
  }

  /**
   * Each pending start claims its key in one statement, which reads the existing record only when there
   * is one: a new key, an expired record or a stale start is (re)written as "started" and runs; otherwise
   * the record stays as it is and decides (replay, mismatch or in progress: a start claimed just before,
   * with the same key, is one). Pending answers are written first, so that a start never misses an answer
   * that has arrived.
   */
  private writePendingStarts(): void {
    this.writePendingAnswers();
    const starts = this.pendingStarts;
    this.pendingStarts = [];
    for (const start of starts) start.decided(this.claim(start.key, start.bodyHash, start.startedAt));
    void this.scheduleExpiry();
  }

  private claim(key: string, bodyHash: string, nowMs: number): IdempotencyDecision {
    const attempt = crypto.randomUUID();
    const claimed = this.sql.exec(CLAIM_RECORD, key, attempt, bodyHash, nowMs, RETENTION_MS).toArray().length === 1;
    if (claimed) return { kind: "run", attempt, resumed: false };
    const stored = this.sql.exec<Row>("SELECT state, attempt, started_at, body_hash, status, body, headers FROM records WHERE key = ?", key).one();
    if (stored.state === "started" && nowMs - stored.started_at >= STALE_START_MS) {
      this.sql.exec(RESUME_STALE_START, key, attempt, bodyHash, nowMs, stored.attempt);
      return { kind: "run", attempt, resumed: true };
    }
    if (stored.state === "started") return { kind: "in_progress", retryAfterSeconds: 1 };
    if (stored.body_hash !== bodyHash) return { kind: "mismatch" };
    return { kind: "replay", status: stored.status ?? 500, body: stored.body ?? "", headers: JSON.parse(stored.headers ?? "{}") };
  }

  /**
   * The operation ran: its answer is what every later request with this key gets. Answers arriving
   * together are written together, `ANSWER_WRITE_DELAY_MS` later, in one transaction: a commit per
   * answer was as costly as the call itself. Each call still returns only once its answer is committed
   * (the output gate), and begun records are claimed only after every pending answer is written, so a
   * request with the key never misses an answer that has arrived.
   */
  finish(key: string, attempt: string, bodyHash: string, status: number, body: string, headers: Record<string, string>): Promise<void> {
    return new Promise((written) => {
      this.pendingAnswers.push({ key, attempt, bodyHash, status, body, headers: JSON.stringify(headers), written });
      if (this.pendingAnswers.length === 1) setTimeout(() => this.writePendingAnswers(), ANSWER_WRITE_DELAY_MS);
    });
  }

  private writePendingAnswers(): void {
    const answers = this.pendingAnswers;
    this.pendingAnswers = [];
    for (const answer of answers) {
      this.sql.exec(
        "UPDATE records SET state = 'done', attempt = NULL, body_hash = ?, status = ?, body = ?, headers = ? WHERE key = ? AND state = 'started' AND attempt = ?",
        answer.bodyHash,
        answer.status,
        answer.body,
        answer.headers,
        answer.key,
        answer.attempt,
      );
    }
    for (const answer of answers) answer.written();
  }

  /**
   * A live session of an organization with write shards, inserted only if its balance over all its shards covers
   * it and its key made no creation in a shard the caller did not know of (then that one is answered).
   */
  insertLiveSession(row: SessionToInsert, creation: SessionCreation, expectedShards: readonly ShardCode[]): Promise<AccountCreation> {
    return this.oneAtATime((decidedBefore) => insertSessionWithinAccountBalance(this.env, row, creation, expectedShards, decidedBefore));
  }

  /** A balance adjustment of an organization with write shards: a debit only while its balance over all its shards covers it. */
  adjustBalance(organizationId: string, amount: number, reason: string, now: string, expectedShards: readonly ShardCode[]): Promise<boolean> {
    return this.oneAtATime((decidedBefore) => adjustBalanceWithinAccount(this.env, organizationId, amount, reason, now, expectedShards, decidedBefore));
  }

  /**
   * One balance decision at a time (each reads other shards, then writes: two interleaved could each count what
   * the other takes), chained in memory, which suffices since the object runs as one instance. Not
   * `blockConcurrencyWhile`: that would hold every other call too, the keys' rate limits and Idempotency-Keys
   * included, for two D1 round trips a creation.
   */
  private balanceDecisions: Promise<unknown> = Promise.resolve();
  /** A decision still running after this long waits on a D1 that does not answer (a field so a test can shorten it). */
  hungDecisionMs = HUNG_DECISION_MS;

  /**
   * Each decision's statement carries a deadline, five sixths of the way to the reset (25 s of 30): D1 runs
   * a statement sent by a reset object if it had received it, and one run past its deadline decides nothing,
   * so no late statement lands after the next instance decided without it (forger session 9, X1). The
   * remaining sixth covers the skew between D1's clock and the object's.
   */
  private oneAtATime<T>(decide: (decidedBefore: string) => Promise<T>): Promise<T> {
    const decision = this.balanceDecisions.then(async () => {
      await this.untilNoDecisionCanLand();
      const startedAt = Date.now();
      // Stored before the statement leaves (the output gate holds it until then): whatever resets this instance
      // (the hung timer, a deploy, an eviction), the next one waits until the statement can no longer land.
      this.sql.exec("INSERT OR REPLACE INTO balance_decision (id, settled_after) VALUES (1, ?)", startedAt + this.hungDecisionMs);
      const value = await this.resetWhenHung(decide(new Date(startedAt + Math.floor((this.hungDecisionMs * 5) / 6)).toISOString()));
      // D1 answered every statement: none is left to land. A failure keeps the record, its statement may still run.
      this.sql.exec("DELETE FROM balance_decision WHERE id = 1");
      return value;
    });
    this.balanceDecisions = decision.catch(() => undefined);
    return decision;
  }

  /**
   * A decision that never got its answer (its instance reset, or D1 failed) may still be run by D1 until its
   * deadline: the next decision waits until that has passed, at most `hungDecisionMs` (forger session 9, Y1).
   */
  private async untilNoDecisionCanLand(): Promise<void> {
    const unsettled = this.sql.exec<{ settled_after: number }>("SELECT settled_after FROM balance_decision WHERE id = 1").toArray()[0];
    if (unsettled === undefined) return;
    const wait = unsettled.settled_after - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.sql.exec("DELETE FROM balance_decision WHERE id = 1");
  }

  /**
   * A hung decision would hold every later one for ever: the object is reset instead, as `blockConcurrencyWhile`
   * does after 30 s, and the next call finds a new instance with nothing queued. The hung call answers 5xx, so its
   * creation's retry replays or runs it (ADR 0046).
   */
  private async resetWhenHung<T>(decision: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`A balance decision ran over ${this.hungDecisionMs} ms: the account object is reset.`));
        this.ctx.abort("balance decision hung");
      }, this.hungDecisionMs);
    });
    try {
      return await Promise.race([decision, hung]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The operation did not run (refused before it) or failed unexpectedly (5xx): a retry may run it. */
  release(key: string, attempt: string): void {
    this.sql.exec("DELETE FROM records WHERE key = ? AND state = 'started' AND attempt = ?", key, attempt);
  }

  /**
   * The alarm rings when the oldest record's 24 hours are over. Once this instance knows an alarm is set
   * it does not ask storage again until that alarm has rung (every creation begins here).
   */
  private async scheduleExpiry(): Promise<void> {
    if (this.expiryScheduled) return;
    this.expiryScheduled = true;
    try {
      if ((await this.ctx.storage.getAlarm()) !== null) return;
      const oldest = this.sql.exec<{ started_at: number }>("SELECT MIN(started_at) AS started_at FROM records").toArray()[0]?.started_at;
      if (oldest !== null && oldest !== undefined) await this.ctx.storage.setAlarm(oldest + RETENTION_MS);
      else this.expiryScheduled = false;
    } catch (error) {
      this.expiryScheduled = false;
      throw error;
    }
  }

  override async alarm(): Promise<void> {
    // An object of the former naming (one per key) held its record under this name; its alarm ends it.
    this.ctx.storage.kv.delete("record");
    this.sql.exec("DELETE FROM records WHERE started_at <= ?", Date.now() - RETENTION_MS);
    this.expiryScheduled = false;
    await this.scheduleExpiry();
  }
}
