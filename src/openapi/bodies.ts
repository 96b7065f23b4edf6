import type { z } from "@hono/zod-openapi";
import { ApiError } from "../errors/api-error.ts";
import { fieldOf } from "./hook.ts";

/** A JSON body the route requires. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { "application/json": { schema } }, required: true } as const;
}

/**
 * A JSON body the client may leave out. Declared in the route like any body, so that a body that is sent
 * is validated before the handler runs (422 `validation_failed` naming its field, 415 for another media type).
 */
export function optionalJsonBody<T extends z.ZodType>(schema: T) {
  return { content: { "application/json": { schema } }, required: false } as const;
}

/**
 * The handler's view of an optional body: what the route validated, or, when none was sent (the validator
 * then hands over `{}` as is), the schema's defaults. Never a bare ZodError: a schema that needs a field
 * the client left out is a 422 naming it.
 */
export function optionalBodyValue<T extends z.ZodType>(schema: T, validated: unknown): z.output<T> {
  const parsed = schema.safeParse(validated);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError("validation_failed", { field: fieldOf("json", issue?.path ?? []), detail: issue?.message });
}
