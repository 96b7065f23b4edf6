import type { Context } from "hono";
import type { App } from "../../app.ts";
import type { Env, HonoEnv } from "../../env.ts";
import { s3UploadOrigin } from "../../storage/objects/signed-urls.ts";
import { usableSession } from "../../capture-page/access.ts";
import { ApiError } from "../../errors/api-error.ts";

/**
 * The capture page's Content-Security-Policy. It may connect to its own host and, when uploads go
 * straight to R2 through S3 presigned URLs (production), to that endpoint and nowhere else.
 */
export function capturePageCsp(env: Env): string {
  const storage = s3UploadOrigin(env);
  return (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob: mediastream:; " +
    `connect-src 'self'${storage ? ` ${storage}` : ""}; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
  );
}

/**
 * The capture page: the same static HTML whatever the state, with the link's status as HTTP status
 * (404 unknown, 410 expired or used) so that the page's script, reading the session, explains it in the
 * person's language.
 */
export async function capturePageResponse(c: Context<HonoEnv>, token: string): Promise<Response> {
  let status = 200;
  try {
    await usableSession({ ctx: { db: c.var.db, now: new Date() }, input: { token } });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    status = error.status;
  }
  const asset = await c.env.ASSETS.fetch(new Request(new URL("/capture/index.html", c.req.url)));
  const headers = new Headers({
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": capturePageCsp(c.env),
    "Referrer-Policy": "no-referrer",
    "Permissions-Policy": "camera=(self), microphone=(self), geolocation=(self)",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  });
  return new Response(asset.ok ? asset.body : "Capture page unavailable", { status: asset.ok ? status : 503, headers });
}

/** `GET /c/{token}`: the capture page itself (HTML, outside the document). */
export function registerCapturePage(app: App) {
  app.get("/c/:token", (c) => capturePageResponse(c, c.req.param("token")));
}
