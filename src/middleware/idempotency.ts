import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { IDEMPOTENCY_KEY_PATTERN } from "../lib/patterns.ts";
import { canonicalJson } from "../lib/canonical-json.ts";

const REPLAYED_HEADERS = ["Content-Type", "Location"];

async function bodyHash(request: Request): Promise<string> {
  const text = await request.clone().text();
  try {
    return sha256Hex(canonicalJson(JSON.parse(text)));
  } catch {
    return sha256Hex(text);
  }
}

/**
 * Required `Idempotency-Key`: the same key and body replay the first answer (`Idempotent-Replayed: true`)
 * without running the operation again; another body gets 422 `idempotency_key_reused`; a request arriving
 * while the first still runs gets 409 `request_in_progress`. 4xx answers are kept too, 5xx are not.
 */
export const idempotent = createMiddleware<HonoEnv>(async (c, next) => {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ApiError("validation_failed", {
      field: "Idempotency-Key",
      detail: "The Idempotency-Key header is required: 8 to 255 letters, digits, `_`, `.`, `:` or `-`.",
    });
  }
  const caller = c.get("caller");
  const namespace = c.env.IDEMPOTENCY;
  const record = namespace.get(namespace.idFromName(`${caller.keyId}:${key}`));
  const hash = await bodyHash(c.req.raw);
  const decision = await record.begin(hash);
  if (decision.kind === "mismatch") throw new ApiError("idempotency_key_reused");
  if (decision.kind === "in_progress") {
    throw new ApiError("request_in_progress", { headers: { "Retry-After": String(decision.retryAfterSeconds) } });
  }
  if (decision.kind === "replay") {
    for (const [name, value] of Object.entries(decision.headers)) c.header(name, value);
    c.header("Idempotent-Replayed", "true");
    return c.body(decision.body, decision.status as 200);
  }
  await next();
  if (c.res.status >= 500) {
    await record.release();
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = c.res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  await record.finish(hash, c.res.status, await c.res.clone().text(), headers);
});
