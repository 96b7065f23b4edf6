import type { App } from "../../app.ts";
import { ApiError } from "../../errors/api-error.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSession } from "../../capture-page/access.ts";
import { resolveSessionTheme } from "../../capture-page/session-theme.ts";
import { openObject } from "../../storage/objects/bucket.ts";

/** `GET /c/{token}/logo`: the session's theme logo, served from the capture host (outside the document). */
export function registerCaptureLogo(app: App) {
  app.get("/c/:token/logo", async (c) => {
    const ctx = captureContext(c);
    // The logo lives as long as the link: a used or expired link answers 410 like the page.
    const session = await usableSession({ ctx, input: { token: c.req.param("token") } });
    const theme = await resolveSessionTheme(c.env, session);
    const logo = theme?.logoKey ? await openObject(c.env, theme.logoKey) : null;
    if (logo === null) throw new ApiError("not_found");
    c.header("Content-Type", theme?.logoContentType ?? "application/octet-stream");
    c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "private, max-age=300");
    return c.body(logo.body, 200);
  });
}
