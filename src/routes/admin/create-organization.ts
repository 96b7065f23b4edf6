import { createRoute } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { createOrganization } from "../../operator/create-organization.ts";
import { CreateOrganizationBody, OrganizationSchema, operatorAnswer } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/admin/v1/organizations",
  hide: true,
  middleware: [adminAuth] as const,
  request: { body: jsonBody(CreateOrganizationBody) },
  responses: { 201: operatorAnswer(OrganizationSchema) },
});

export function registerCreateOrganization(app: App) {
  app.openapi(route, async (c) => c.json(await createOrganization({ ctx: { env: c.env, now: new Date() }, input: c.req.valid("json") }), 201));
}
