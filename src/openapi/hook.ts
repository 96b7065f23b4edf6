import type { Hook } from "@hono/zod-openapi";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/** JSON pointer (RFC 6901) of a body field; the plain name of a query, path or header parameter. */
export function fieldOf(target: string, path: PropertyKey[]): string {
  if (target !== "json") return path.map(String).join(".");
  return "/" + path.map((segment) => String(segment).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
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
