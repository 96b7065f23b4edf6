import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ErrorCode } from "../errors/catalogue.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { IDEMPOTENCY_KEY_PATTERN } from "../lib/patterns.ts";
import { canonicalJson } from "../../shared/canonical-json.ts";
import { isJsonMediaType, readBodyWithinLimit } from "./json-body-limit.ts";
import { apiAccountOf, applyRateLimit, settleRateLimit } from "./api-key.ts";

const REPLAYED_HEADERS = ["Content-Type", "Location"];

/** An earlier attempt's answer as its operation recorded it with what it created (ADR 0046), and the body hash it ran with. */
export interface RecordedAnswer {
  requestHash: string;
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Where a route that records its attempt with what it creates finds that answer again (ADR 0046). */
export type RecordedAnswers = (c: Context<HonoEnv>, idempotencyKey: string) => Promise<RecordedAnswer | null>;

/** The Idempotency-Key and body hash of the request the idempotency middleware let run, for an operation that records them. */
export function idempotentRequest(c: Context<HonoEnv>): { key: string; requestHash: string } {
  const request = c.get("idempotentRequest");
  if (request === undefined) throw new Error("idempotentRequest is only known behind the idempotent middleware");
  return request;
}

/**
 * Refusals made before the operation ran: nothing happened, so nothing is stored and a corrected retry
 * with the same key runs (Stripe stores none of them). A 402 belongs here too: once the balance is
 * topped up, the same request must succeed rather than replay the refusal for 24 hours. Authentication,
 * rate limit and rights are checked before this middleware; they are listed so that order never matters.
 */
const REFUSED_BEFORE_EXECUTION: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "validation_failed",
  "invalid_json",
  "unsupported_media_type",
  "payload_too_large",
  "insufficient_balance",
  // Another body with the key of a creation recorded in D1 (ADR 0046): this request ran nothing.
  "idempotency_key_reused",
  "unauthenticated",
  "insufficient_scope",
  "rate_limited",
]);

/**
 * The body the key is bound to. Only JSON is read (the route takes nothing else: anything else is 415
 * before a byte is read), and never beyond the JSON size limit: a JSON body through Hono's cached text,
 * which the JSON body limit (src/middleware/json-body-limit.ts) has bounded and the route's validator
 * then reuses (read once); a body without a type from a bounded clone, only to tell whether it is empty.
 */
async function bodyHash(c: Context<HonoEnv>): Promise<string> {
  const contentType = c.req.header("Content-Type");
  if (contentType !== undefined && !isJsonMediaType(contentType)) throw new ApiError("unsupported_media_type");
  if (contentType === undefined) {
    if ((await readBodyWithinLimit(c.req.raw)) !== "") throw new ApiError("unsupported_media_type");
    return sha256Hex("");
  }
  const text = await c.req.text();
  try {
    return sha256Hex(canonicalJson(JSON.parse(text)));
  } catch {
    return sha256Hex(text);
  }
}

function requiredIdempotencyKey(key: string | undefined): string {
  if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ApiError("validation_failed", {
      field: "/header/Idempotency-Key",
      detail: "The Idempotency-Key header is required: 8 to 255 letters, digits, `_`, `.`, `:` or `-`.",
    });
  }
  return key;
}

/** Whether the operation ran, so that its answer is the one every retry with this key must get. */
function executed(c: Context<HonoEnv>): boolean {
  if (c.res.status >= 500) return false;
  if (c.error === undefined) return true;
  // Errors that are not ApiError come from the validators (malformed body or media type) or are 5xx.
  return c.error instanceof ApiError && !REFUSED_BEFORE_EXECUTION.has(c.error.code);
}

/**
 * Required `Idempotency-Key`: the same key and body replay the first answer (`Idempotent-Replayed: true`)
 * without running the operation again; another body gets 422 `idempotency_key_reused`; a request arriving
 * while the first still runs gets 409 `request_in_progress`. An answer is stored only once the operation
 * ran (it created something, or failed inside the operation); refusals before it and 5xx are forgotten.
 *
 * For an operation that records its attempt with what it creates, in the same D1 batch (ADR 0046),
 * `recordedAnswers` finds that answer when the key's record in the Durable Object never received it (the
 * Worker died between the two, or is still between them): a request finding the record "started" replays
 * it, as does a run taking over a stale start, which stores it as its own.
 */
export function idempotentRecordedIn(recordedAnswers: RecordedAnswers): MiddlewareHandler<HonoEnv> {
  return Object.assign(idempotentMiddleware(recordedAnswers), { [IDEMPOTENT]: true });
}

/** Marks the middlewares `idempotentRecordedIn` makes, so that `apiRoute` leaves them the rate limit's charge. */
const IDEMPOTENT = Symbol("idempotent");

export const isIdempotent = (middleware: unknown): boolean => typeof middleware === "function" && IDEMPOTENT in middleware;

const idempotentMiddleware = (recordedAnswers: RecordedAnswers) =>
  createMiddleware<HonoEnv>(async (c, next) => {
    let key: string;
    let hash: string;
    try {
      // The media type first: a body that can never be accepted says so (415) before a missing key does.
      hash = await bodyHash(c);
      key = requiredIdempotencyKey(c.req.header("Idempotency-Key"));
    } catch (error) {
      // The rate limit answers first, as it would had it been checked before this middleware.
      await settleRateLimit(c);
      throw error;
    }
    // Keys are scoped like Stripe's, per account: every key of one organization and mode shares them, in
    // the account's Durable Object, which also holds the keys' rate limits: both in one call (one round trip).
    const account = apiAccountOf(c, c.get("caller"));
    const charge = c.get("rateLimitCharge") ?? null;
    c.set("rateLimitCharge", undefined);
    const begun = await account.begin(key, hash, charge);
    // A request the rate limit refuses made no record: the key stays free for its retry.
    if (begun.limit !== null) applyRateLimit(c, begun.limit);
    const decision = begun.decision;
    if (decision === null) throw new Error("An allowed request always gets an idempotency decision");
    if (decision.kind === "mismatch") throw new ApiError("idempotency_key_reused", { field: "/header/Idempotency-Key" });
    // A record still (or long) "started" may belong to a Worker that died after its operation recorded what it
    // created: that record is the answer. A request in progress only replays it (the first attempt may still
    // store it); a run taking over a stale start stores it as its own, under the body it was made with.
    const recorded = decision.kind === "in_progress" || (decision.kind === "run" && decision.resumed) ? await recordedAnswers(c, key) : null;
    if (recorded !== null) {
      if (decision.kind === "run") {
        const attempt = decision.attempt;
        c.executionCtx.waitUntil(
          storeAnswer(() => apiAccountOf(c, c.get("caller")).finish(key, attempt, recorded.requestHash, recorded.status, recorded.body, recorded.headers)),
        );
      }
      if (recorded.requestHash !== hash) throw new ApiError("idempotency_key_reused", { field: "/header/Idempotency-Key" });
      return replay(c, recorded);
    }
    if (decision.kind === "in_progress") {
      throw new ApiError("request_in_progress", { headers: { "Retry-After": String(decision.retryAfterSeconds) } });
    }
    if (decision.kind === "replay") return replay(c, decision);
    c.set("idempotentRequest", { key, requestHash: hash });
    await next();
    if (!executed(c)) {
      // Awaited: a corrected retry sent as soon as this refusal arrives must find the key free.
      await account.release(key, decision.attempt);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = c.res.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const body = await c.res.clone().text();
    // The answer does not wait for this write (a round trip): the record stays "started" until it lands, so a
    // request with this key meanwhile gets the recorded answer or 409 request_in_progress, never a second run. The
    // call leaves before the answer does, so a retry sent after the answer normally finds the answer stored.
    const status = c.res.status;
    c.executionCtx.waitUntil(storeAnswer(() => apiAccountOf(c, c.get("caller")).finish(key, decision.attempt, hash, status, body, headers)));
  });

function replay(c: Context<HonoEnv>, answer: { status: number; body: string; headers: Record<string, string> }): Response {
  for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
  c.header("Idempotent-Replayed", "true");
  return c.body(answer.body, answer.status as 200);
}

/** Waits before each new try of an answer's write; all of them end well within `waitUntil`'s 30 seconds. */
const ANSWER_WRITE_RETRY_DELAYS_MS = [100, 1_000, 5_000];

/**
 * Writes a creation's answer after the answer left, trying again if a try fails (a reset object, a lost
 * call). Nobody would see a failure: the record would stay "started", the key answering 409 for a minute
 * and then letting a retry run the creation a second time. Each try asks a new stub (a stub that threw may
 * stay broken) and can only fill its own attempt's record, so trying again never overwrites anything.
 */
async function storeAnswer(write: () => Promise<void>): Promise<void> {
  for (const delay of ANSWER_WRITE_RETRY_DELAYS_MS) {
    try {
      return await write();
    } catch (error) {
      console.warn(JSON.stringify({ level: "warn", message: "Idempotency-Key answer not written; trying again", retry_in: delay, reason: String(error) }));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  return write();
}
