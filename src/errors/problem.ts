import type { Context } from "hono";
import { ERROR_CATALOGUE, errorSlug, type ErrorCode } from "./catalogue.ts";
import type { ApiError } from "./api-error.ts";
import type { HonoEnv } from "../env.ts";

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail?: string;
  field?: string;
  request_id?: string;
  [extra: string]: unknown;
}

export function problemTypeUrl(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl.replace(/\/$/, "")}/errors/${errorSlug(code)}`;
}

export function problemBody(
  baseUrl: string,
  code: ErrorCode,
  options: { detail?: string; field?: string; requestId?: string; locale?: "en" | "fr"; extra?: Record<string, unknown> } = {},
): ProblemBody {
  const definition = ERROR_CATALOGUE[code];
  const body: ProblemBody = {
    type: problemTypeUrl(baseUrl, code),
    title: definition.title[options.locale ?? "en"],
    status: definition.status,
    code,
    ...options.extra,
  };
  if (options.detail !== undefined) body.detail = options.detail;
  if (options.field !== undefined) body.field = options.field;
  if (options.requestId !== undefined) body.request_id = options.requestId;
  return body;
}

/** Renders an error through the context so headers already set on it (rate limits, request id) are kept. */
export function problemResponse(c: Context<HonoEnv>, error: ApiError): Response {
  const body = problemBody(c.env.API_BASE_URL, error.code, {
    detail: error.message === ERROR_CATALOGUE[error.code].title.en ? undefined : error.message,
    field: error.field,
    requestId: c.get("requestId"),
    locale: c.get("locale"),
    extra: error.extra,
  });
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  c.header("Content-Type", "application/problem+json");
  return c.body(JSON.stringify(body), error.status as 400);
}
