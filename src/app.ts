import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { HonoEnv } from "./env.ts";
import { ApiError } from "./errors/api-error.ts";
import { problemResponse } from "./errors/problem.ts";
import { validationHook } from "./openapi/hook.ts";
import { requestContext } from "./middleware/request-context.ts";
import { httpsOnly } from "./middleware/https-only.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { jsonBodyLimit } from "./middleware/json-body-limit.ts";
import { answerUnmatchedRoute } from "./middleware/unmatched-route.ts";
import { databaseContext } from "./middleware/database.ts";

export type App = OpenAPIHono<HonoEnv>;

/** A Hono app with the service's error handling: every error leaves in the problem format. */
export function createApp(): App {
  const app = new OpenAPIHono<HonoEnv>({ defaultHook: validationHook });
  app.use("*", requestContext, databaseContext, securityHeaders, httpsOnly, jsonBodyLimit);
  app.onError((error, c) => problemResponse(c, toApiError(error, c)));
  app.notFound((c) => answerUnmatchedRoute(c, allowedMethods(app, new URL(c.req.url).pathname)));
  return app;
}

function toApiError(error: Error, c: Context<HonoEnv>): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException && error.status === 400) {
    return new ApiError("invalid_json", { detail: "The request body is not valid JSON." });
  }
  // @hono/zod-openapi refuses a body that is not declared JSON (curl's default `-d` is form-encoded).
  if (error instanceof HTTPException && error.status === 415) return new ApiError("unsupported_media_type");
  console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), message: error.message, stack: error.stack }));
  return new ApiError("internal_error");
}

/**
 * The methods of the routes serving exactly this path. Routes match strictly, so `/v1/me/` is not `/v1/me`:
 * a trailing slash is another, unknown path (404), never a 405 listing the methods of the path without it.
 */
function allowedMethods(app: App, pathname: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const pattern = new RegExp(
      `^${route.path
        .replace(/[.+?^$()[\]\\|]/g, "\\$&")
        .replace(/:[A-Za-z0-9_]+(\{[^}]*\})?/g, "[^/]+")
        .replace(/\*/g, ".*")}$`,
    );
    if (pattern.test(pathname)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}
