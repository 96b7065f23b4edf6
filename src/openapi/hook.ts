import type { Hook } from "@hono/zod-openapi";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/** Where a parameter sits, as the first segment of its pointer; a body field has none (`/external_reference`). */
const PARAMETER_PREFIX: Record<string, string[]> = { query: ["query"], param: ["path"], header: ["header"], cookie: ["cookie"] };

/**
 * JSON pointer (RFC 6901) naming the faulty input: `/external_reference` for a body field,
 * `/query/limit`, `/path/id`, `/header/Idempotency-Key` for parameters (the convention the API documents).
 */
export function fieldOf(target: string, path: PropertyKey[]): string {
  return pointer([...(PARAMETER_PREFIX[target] ?? []), ...path]);
}

function pointer(segments: PropertyKey[]): string {
  return `/${segments.map((segment) => String(segment).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
}

/** Turns the first schema violation into `422 validation_failed` with `field` naming it. */
export const validationHook: Hook<unknown, HonoEnv, string, unknown> = (result) => {
  if (result.success) return;
  const error = result.error as unknown as { issues: Issue[] };
  const issue = error.issues[0];
  if (issue === undefined) throw new ApiError("validation_failed");
  const path = issue.code === "unrecognized_keys" && issue.keys?.[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
  const detail = issue.code === "unrecognized_keys" ? "Unknown field." : issue.message;
  throw new ApiError("validation_failed", { field: fieldOf(result.target, path), detail });
};
