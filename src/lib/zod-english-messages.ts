/**
 * zod's error messages as the Worker bundles them: English only, the one zod sets by default and the only one the
 * service answers with (a 422's `detail`, `src/openapi/hook.ts`). wrangler.toml's `alias` puts this module in
 * place of zod's `v4/locales/index.js`, whose 60-odd translated tables (about 370 kB) esbuild would otherwise
 * keep because `@hono/zod-openapi` hands zod's whole namespace to `extendZodWithOpenApi` (ADR 0039).
 */
export { default as en } from "zod/v4/locales/en.js";
