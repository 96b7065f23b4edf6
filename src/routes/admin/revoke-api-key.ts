import { createRoute } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { revokeOrganizationApiKey } from "../../operator/revoke-api-key.ts";
import { OrganizationIdParams } from "./schema.ts";

const route = createRoute({
  method: "delete",
  path: "/admin/v1/api-keys/{id}",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams },
  responses: { 204: { description: "Revoked" } },
});

export function registerRevokeApiKey(app: App) {
  app.openapi(route, async (c) => {
    await revokeOrganizationApiKey({ ctx: { env: c.env, now: new Date() }, input: c.req.valid("param") });
    return c.body(null, 204);
  });
}
