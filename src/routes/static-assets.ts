import type { App } from "../app.ts";
import { ApiError } from "../errors/api-error.ts";

/** Static files under public/ (the Worker runs first for every path, see wrangler.toml). */
const ASSET_PATHS = ["/robots.txt", "/capture/*", "/verify/*"];

export function registerStaticAssets(app: App) {
  for (const path of ASSET_PATHS) {
    app.get(path, async (c) => {
      const response = await c.env.ASSETS.fetch(c.req.raw);
      // Not c.notFound(): this route matches every path below it, so the unmatched-route answer would be a 405 for a GET.
      if (response.status === 404) throw new ApiError("not_found");
      const headers = new Headers(response.headers);
      headers.set("X-Content-Type-Options", "nosniff");
      headers.set("Cache-Control", "public, max-age=300");
      return new Response(response.body, { status: response.status, headers });
    });
  }
}
