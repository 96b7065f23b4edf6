import type { App } from "../app.ts";

/** Static files under public/ (the Worker runs first for every path, see wrangler.toml). */
const ASSET_PATHS = ["/robots.txt", "/capture/*", "/verify/*"];

export function registerStaticAssets(app: App) {
  for (const path of ASSET_PATHS) {
    app.get(path, async (c) => {
      const response = await c.env.ASSETS.fetch(c.req.raw);
      if (response.status === 404) return c.notFound();
      const headers = new Headers(response.headers);
      headers.set("X-Content-Type-Options", "nosniff");
      headers.set("Cache-Control", "public, max-age=300");
      return new Response(response.body, { status: response.status, headers });
    });
  }
}
