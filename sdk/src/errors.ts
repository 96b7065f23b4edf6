import type { Schemas, ResponseMeta } from "./types.ts";

/** The problem codes the API document lists (its `Problem.code` enum); other codes may appear in later versions. */
export type ProblemCode = Schemas["Problem"]["code"];

/**
 * An RFC 9457 problem answered by the API. Rely on `code`; `title` is for people and may change. `field` is a
 * JSON pointer to the faulty input (`/external_reference`, `/query/limit`, `/header/Idempotency-Key`).
 */
export class ProofSealError extends Error {
  readonly status: number;
  readonly code: ProblemCode | (string & {});
  readonly title: string;
  readonly type: string;
  readonly field: string | null;
  readonly detail: string | null;
  readonly requestId: string | null;
  /** The problem body as received. */
  readonly problem: Record<string, unknown>;
  readonly lastResponse: ResponseMeta;

  constructor(problem: Record<string, unknown>, lastResponse: ResponseMeta) {
    const text = (name: string) => (typeof problem[name] === "string" ? (problem[name] as string) : null);
    const code = text("code") ?? "unexpected_response";
    const title = text("title") ?? `HTTP ${lastResponse.status}`;
    super(`${lastResponse.status} ${code}: ${title}${text("field") ? ` (${text("field")})` : ""}`);
    this.name = "ProofSealError";
    this.status = typeof problem.status === "number" ? problem.status : lastResponse.status;
    this.code = code;
    this.title = title;
    this.type = text("type") ?? "about:blank";
    this.field = text("field");
    this.detail = text("detail");
    this.requestId = text("request_id") ?? lastResponse.requestId;
    this.problem = problem;
    this.lastResponse = lastResponse;
  }
}

/** No answer came back (network failure or time-out), after the retries that were safe. */
export class ProofSealConnectionError extends Error {
  readonly attempts: number;
  readonly idempotencyKey: string | null;

  constructor(message: string, options: { cause: unknown; attempts: number; idempotencyKey: string | null }) {
    super(message, { cause: options.cause });
    this.name = "ProofSealConnectionError";
    this.attempts = options.attempts;
    this.idempotencyKey = options.idempotencyKey;
  }
}

/** Why a webhook delivery was refused by `webhooks.verify`. */
export type WebhookVerificationReason =
  | "missing_header"
  | "missing_timestamp"
  | "no_signatures"
  | "signature_mismatch"
  | "timestamp_outside_tolerance"
  | "invalid_json";

export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}
