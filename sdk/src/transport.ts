import { ProofSealConnectionError, ProofSealError } from "./errors.ts";
import type { Download, RateLimit, ResponseMeta, WithResponse } from "./types.ts";

export interface ClientOptions {
  /** `sk_test_…` or `sk_live_…`; may be left out to call only the public routes. */
  apiKey?: string;
  /** The API host, e.g. `http://localhost:8787` for `npm run dev`. */
  baseUrl: string;
  /** Retries after the first attempt, where retrying is safe (default 2). */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 60). */
  maxRetryAfterSeconds?: number;
  /** Time-out of one HTTP attempt (default 60 000 ms); a time-out is retried like a network failure. */
  timeoutMs?: number;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** How the SDK waits between attempts; tests give one that does not wait. */
  sleep?: (milliseconds: number) => Promise<void>;
  /** Source of jitter in [0, 1); defaults to `Math.random`. */
  random?: () => number;
  /** Makes Idempotency-Keys; defaults to `crypto.randomUUID()`. */
  idempotencyKey?: () => string;
}

export interface CallOptions {
  /** The Idempotency-Key of a creating call; generated when left out. */
  idempotencyKey?: string;
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
}

export interface Call {
  operationId: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: object;
  json?: unknown;
  bytes?: { body: Uint8Array | Blob; contentType: string };
  /** Needs the API key (every route but the public ones). */
  authenticated: boolean;
  /** The operation takes an Idempotency-Key, so a lost answer can be retried with the same key. */
  idempotent?: boolean;
  options?: CallOptions;
}

const RETRYABLE_METHODS = new Set(["GET", "PUT", "PATCH", "DELETE"]);
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** HTTP for the resources: credentials, Idempotency-Keys, safe retries, problems as errors, answer metadata. */
export class Transport {
  readonly #options: Required<Omit<ClientOptions, "apiKey">> & { apiKey: string | undefined };

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required, e.g. http://localhost:8787");
    this.#options = {
      apiKey: options.apiKey,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      sleep: options.sleep ?? ((milliseconds) => new Promise((done) => setTimeout(done, milliseconds))),
      random: options.random ?? Math.random,
      idempotencyKey: options.idempotencyKey ?? (() => crypto.randomUUID()),
    };
  }

  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  async json<T>(call: Call): Promise<WithResponse<T>> {
    const { response, meta } = await this.#send(call);
    const value = response.status === 204 ? {} : await response.json();
    Object.defineProperty(value, "lastResponse", { value: meta, enumerable: false });
    return value as WithResponse<T>;
  }

  async empty(call: Call): Promise<ResponseMeta> {
    const { response, meta } = await this.#send(call);
    await response.body?.cancel();
    return meta;
  }

  async download(call: Call): Promise<Download> {
    const { response, meta } = await this.#send(call);
    return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get("content-type"), lastResponse: meta };
  }

  async #send(call: Call): Promise<{ response: Response; meta: ResponseMeta }> {
    const options = this.#options;
    if (call.authenticated && !options.apiKey) throw new TypeError(`${call.operationId} needs an API key: new ProofSeal({ apiKey, baseUrl })`);
    const idempotencyKey = call.idempotent ? (call.options?.idempotencyKey ?? options.idempotencyKey()) : null;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (call.authenticated) headers.Authorization = `Bearer ${options.apiKey}`;
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    let body: BodyInit | undefined;
    if (call.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(call.json);
    } else if (call.bytes) {
      headers["Content-Type"] = call.bytes.contentType;
      body = call.bytes.body as BodyInit;
    }
    const url = `${options.baseUrl}${call.path}${queryString(call.query)}`;
    // A lost answer may mean the request ran: only calls that cannot run twice are sent again after one.
    const safeAfterLostAnswer = idempotencyKey !== null || RETRYABLE_METHODS.has(call.method);

    for (let attempt = 1; ; attempt += 1) {
      const signal = call.options?.signal
        ? AbortSignal.any([call.options.signal, AbortSignal.timeout(options.timeoutMs)])
        : AbortSignal.timeout(options.timeoutMs);
      let response: Response;
      try {
        response = await options.fetch(url, { method: call.method, headers, body, signal });
      } catch (error) {
        if (call.options?.signal?.aborted) throw error;
        if (!safeAfterLostAnswer || attempt > options.maxRetries) {
          throw new ProofSealConnectionError(`${call.operationId}: no answer after ${attempt} attempt(s): ${String(error)}`, {
            cause: error,
            attempts: attempt,
            idempotencyKey,
          });
        }
        await options.sleep(this.#backoff(attempt));
        continue;
      }
      const meta = responseMeta(response, idempotencyKey, attempt);
      if (response.ok) return { response, meta };
      const problem = await readProblem(response);
      const error = new ProofSealError(problem, meta);
      const wait = this.#retryDelay(response, error, attempt, safeAfterLostAnswer);
      if (wait === null) throw error;
      await options.sleep(wait);
    }
  }

  /** Milliseconds to wait before retrying this failed answer, or null when it must not be retried. */
  #retryDelay(response: Response, error: ProofSealError, attempt: number, safeAfterLostAnswer: boolean): number | null {
    if (attempt > this.#options.maxRetries) return null;
    // 429 and request_in_progress refuse the request before it runs; a 5xx may have run it halfway.
    const retryable =
      response.status === 429 || (response.status === 409 && error.code === "request_in_progress") || (response.status >= 500 && safeAfterLostAnswer);
    if (!retryable) return null;
    const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
    if (retryAfter === null) return this.#backoff(attempt);
    if (retryAfter > this.#options.maxRetryAfterSeconds) return null;
    // Never earlier than asked; up to 20 % later, so that clients refused together do not all come back together.
    return Math.ceil(retryAfter * 1000 * (1 + 0.2 * this.#options.random()));
  }

  /** Exponential back-off with jitter: 0.25-0.5 s, 0.5-1 s, 1-2 s… up to 8 s. */
  #backoff(attempt: number): number {
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (ceiling / 2) * this.#options.random());
  }
}

function queryString(query: object | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** `Retry-After` in seconds (RFC 9110: delay-seconds or an HTTP date). */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

function rateLimitOf(headers: Headers): RateLimit | null {
  const limit = headers.get("ratelimit-limit");
  const remaining = headers.get("ratelimit-remaining");
  if (limit === null || remaining === null) return null;
  const reset = headers.get("ratelimit-reset");
  return { limit: Number(limit), remaining: Number(remaining), resetSeconds: reset === null ? null : Number(reset) };
}

function responseMeta(response: Response, idempotencyKey: string | null, attempts: number): ResponseMeta {
  return {
    status: response.status,
    requestId: response.headers.get("request-id"),
    rateLimit: rateLimitOf(response.headers),
    idempotencyKey,
    idempotentReplayed: response.headers.get("idempotent-replayed") === "true",
    attempts,
    headers: response.headers,
  };
}

async function readProblem(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: described below
  }
  return { status: response.status, code: "unexpected_response", title: `HTTP ${response.status}`, detail: text.slice(0, 200) };
}
