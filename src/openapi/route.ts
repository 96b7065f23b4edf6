import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Right } from "../auth/rights.ts";
import type { ErrorCode } from "../errors/catalogue.ts";
import { problemResponses } from "../errors/openapi.ts";
import { apiKeyAuth } from "../middleware/api-key.ts";
import { isIdempotent } from "../middleware/idempotency.ts";
import { isJsonMediaType } from "../middleware/json-body-limit.ts";
import type { RequestCost } from "../durable/rate-limit-client.ts";

/** A body declared only as JSON is refused in any other media type (curl's default `-d` is form-encoded). */
function mediaTypeErrors(route: RouteConfig): ErrorCode[] {
  const types = Object.keys(route.request?.body?.content ?? {});
  return types.length > 0 && types.every(isJsonMediaType) ? ["unsupported_media_type"] : [];
}

/** Errors every API-key route can answer with. */
const API_KEY_ERRORS: readonly ErrorCode[] = ["https_required", "unauthenticated", "rate_limited", "internal_error"];

interface ApiRouteOptions {
  /** The right the key must carry; `null` for routes any valid key may call. */
  right: Right | null;
  /** `write` for calls that create something (cost 2), `read` otherwise (cost 1). */
  cost: RequestCost;
  /** Error codes specific to this route; the authentication, rate-limit and validation ones are added. */
  errors: readonly ErrorCode[];
}

/**
 * Declares an API-key route once: the right it needs, its rate-limit cost and its errors sit next to
 * its schema, and the OpenAPI document, the middleware and the error responses all derive from them.
 */
export function apiRoute<const R extends RouteConfig>(options: ApiRouteOptions, route: R) {
  const errors: ErrorCode[] = [...API_KEY_ERRORS, ...options.errors];
  if (options.right !== null) errors.push("insufficient_scope");
  if (route.request !== undefined) errors.push("validation_failed");
  if (route.request?.body !== undefined) errors.push("invalid_json", "payload_too_large", ...mediaTypeErrors(route));
  const existing = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return createRoute({
    ...route,
    security: [{ apiKey: [] }],
    "x-required-right": options.right,
    // An idempotent route checks the rate limit and the idempotency record in one round trip.
    middleware: [apiKeyAuth(options.right, options.cost, existing.some(isIdempotent)), ...(existing as MiddlewareHandler[])] as const,
    responses: { ...problemResponses(errors), ...route.responses },
  });
}

/** A route without an API key (public, capture page, supervision): only its own errors are added. */
export function publicRoute<const R extends RouteConfig>(errors: readonly ErrorCode[], route: R) {
  const all: ErrorCode[] = ["https_required", ...errors, "internal_error"];
  if (route.request !== undefined) all.push("validation_failed");
  if (route.request?.body !== undefined) all.push("invalid_json", "payload_too_large", ...mediaTypeErrors(route));
  return createRoute({ security: [], ...route, responses: { ...problemResponses(all), ...route.responses } });
}
