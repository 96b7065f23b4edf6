import { registerHooks } from "node:module";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

/**
 * The API's OpenAPI document as `GET /openapi.json` serves it, built in this process from the Worker's own
 * routes: the generator needs no running server and no network (npm install cannot reach one, ADR 0038).
 * The Worker's modules import `cloudflare:workers` for its Durable Object classes; nothing of it runs while
 * the document is built, so empty stand-ins are enough.
 */
let hooked = false;

export async function loadOpenApiDocument(): Promise<Record<string, unknown>> {
  if (!hooked) {
    registerHooks({
      resolve(specifier, context, next) {
        if (!specifier.startsWith("cloudflare:")) return next(specifier, context);
        const standIn = "export class DurableObject {} export class WorkerEntrypoint {} export class RpcTarget {} export const env = {};";
        return { url: `data:text/javascript,${encodeURIComponent(standIn)}`, shortCircuit: true };
      },
    });
    hooked = true;
  }
  const root = resolve(import.meta.dirname, "../..");
  // Computed paths: the SDK's type check must not pull in the Worker's sources and their runtime types.
  const routes = await import(pathToFileURL(resolve(root, "src/routes/index.ts")).href);
  const document = await import(pathToFileURL(resolve(root, "src/routes/openapi/document.ts")).href);
  return document.openApiDocument(routes.createApiApp(), "http://localhost:8787", "en");
}
