import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

/**
 * Far above the largest valid JSON body (a template's content is at most 500,000 bytes, src/capture-
 * templates/template-size.ts; its request may be indented or \u-escaped) so that an oversized template
 * gets its own 422 `template_too_large`, and far below a Worker's memory: a bigger JSON body is refused
 * before it is parsed, chunked or not. Files (uploads, verify by file, logos) keep their own limits.
 */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

/** `application/json` or a `+json` type such as `application/merge-patch+json`, parameters ignored. */
export function isJsonMediaType(contentType: string): boolean {
  return /^application\/([\w.-]+\+)?json$/i.test(contentType.split(";")[0]!.trim());
}

const limit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw new ApiError("payload_too_large");
  },
});

export const jsonBodyLimit: MiddlewareHandler<HonoEnv> = async (c, next) => {
  if (!(c.req.header("Content-Type") ?? "").toLowerCase().includes("json")) return next();
  return limit(c, next);
};

/**
 * The body as text, read from a clone (the validators read it again) and never beyond the JSON limit
 * (413 `payload_too_large`), whatever its declared type: a caller that must look at a body before the
 * route's validators do, such as the idempotency middleware, cannot be made to buffer gigabytes.
 */
export async function readBodyWithinLimit(request: Request): Promise<string> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_JSON_BODY_BYTES) throw new ApiError("payload_too_large");
  const body = request.clone().body;
  if (body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_JSON_BODY_BYTES) {
      await reader.cancel();
      throw new ApiError("payload_too_large");
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
