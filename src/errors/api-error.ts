import { ERROR_CATALOGUE, type ErrorCode } from "./catalogue.ts";

/** The one error type routes throw; `app.onError` renders it in the problem format. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, options: { detail?: string; field?: string; headers?: Record<string, string>; extra?: Record<string, unknown> } = {}) {
    super(options.detail ?? ERROR_CATALOGUE[code].title.en);
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.field = options.field;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}
