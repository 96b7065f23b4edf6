import { createRoute } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { issueOrganizationApiKey } from "../../operator/issue-organization-api-key.ts";
import { CreateApiKeyBody, CreatedApiKeySchema, OrganizationIdParams, operatorAnswer } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/admin/v1/organizations/{id}/api-keys",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams, body: jsonBody(CreateApiKeyBody) },
  responses: { 201: operatorAnswer(CreatedApiKeySchema) },
});

export function registerCreateApiKey(app: App) {
  app.openapi(route, async (c) =>
    c.json(
      await issueOrganizationApiKey({ ctx: { env: c.env, now: new Date() }, input: { organizationId: c.req.valid("param").id, key: c.req.valid("json") } }),
      201,
    ),
  );
}
