import type { components, operations, webhooks } from "./generated/openapi.ts";

/** Every schema of the API document by name, e.g. `Schemas["Proof"]`. */
export type Schemas = components["schemas"];
export type OperationId = keyof operations;

type Responses<O extends OperationId> = operations[O]["responses"];
type JsonContent<R> = R extends { content: { "application/json": infer J } } ? J : never;

/** The JSON body of an operation's success answer (200, 201 or 202). */
export type ResultOf<O extends OperationId> = JsonContent<
  Responses<O>[200 & keyof Responses<O>] | Responses<O>[201 & keyof Responses<O>] | Responses<O>[202 & keyof Responses<O>]
>;

/** The JSON request body of an operation. */
export type BodyOf<O extends OperationId> = operations[O] extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** `"true" | "false"` query values may be given as booleans: `proofs.list({ linked: false })`. */
type Loosened<V> = [Exclude<V, undefined>] extends ["true" | "false"] ? Exclude<V, undefined> | boolean : V;

/** The query parameters of an operation, booleans accepted where the API reads `true`/`false`. */
export type QueryOf<O extends OperationId> = operations[O]["parameters"] extends { query?: infer Q }
  ? [NonNullable<Q>] extends [never]
    ? never
    : { [K in keyof NonNullable<Q>]?: Loosened<NonNullable<Q>[K]> }
  : never;

/** A list page as the API answers it. */
export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The item type of a paginated operation. */
export type ItemOf<O extends OperationId> = ResultOf<O> extends ListPage<infer T> ? T : never;

/** The events the service delivers, by name: `"proof.sealed"`, `"capture_session.completed"`… */
export type WebhookEventName = keyof webhooks;

/** The body of one event, as delivered. */
export type WebhookEventOf<N extends WebhookEventName> = webhooks[N]["post"] extends { requestBody: { content: { "application/json": infer J } } } ? J : never;

/** Any delivered event; narrow it on `event`: `if (event.event === "proof.sealed") event.manifest_sha256`. */
export type WebhookEvent = { [N in WebhookEventName]: WebhookEventOf<N> }[WebhookEventName];

/** The mode a key works in, read from its prefix (`sk_test_`, `sk_live_`). */
export type Mode = "test" | "live";

/** Rate-limit headers of an answer (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`). */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Seconds until the window resets; null when the answer did not say. */
  resetSeconds: number | null;
}

/** What the SDK saw of the HTTP answer that produced a result (or an error). */
export interface ResponseMeta {
  status: number;
  /** `Request-Id` of the answer: quote it to support. */
  requestId: string | null;
  /** Null on answers without rate-limit headers (public routes, 401). */
  rateLimit: RateLimit | null;
  /** The `Idempotency-Key` sent, generated or given; null for calls that take none. */
  idempotencyKey: string | null;
  /** `Idempotent-Replayed: true`: the API returned the answer of an earlier request with the same key. */
  idempotentReplayed: boolean;
  /** How many HTTP attempts the call took (1 without retries). */
  attempts: number;
  headers: Headers;
}

/** A result with the answer's metadata, as a non-enumerable `lastResponse` (JSON.stringify leaves it out). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseMeta };

/** A binary answer: a verification package, a signed file, a thumbnail. */
export interface Download {
  bytes: Uint8Array;
  contentType: string | null;
  readonly lastResponse: ResponseMeta;
}
