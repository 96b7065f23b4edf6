import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env.ts";
import { newId } from "../lib/ids.ts";

/** Gives every request an id (sent back as `Request-Id`) and the language of its error titles. */
export const requestContext = createMiddleware<HonoEnv>(async (c, next) => {
  const requestId = newId("req");
  c.set("requestId", requestId);
  c.set("locale", prefersFrench(c.req.header("Accept-Language")) ? "fr" : "en");
  c.header("Request-Id", requestId);
  await next();
});

function prefersFrench(acceptLanguage: string | undefined): boolean {
  const first = acceptLanguage?.split(",")[0]?.trim().toLowerCase() ?? "";
  return first === "fr" || first.startsWith("fr-") || first.startsWith("fr;");
}
