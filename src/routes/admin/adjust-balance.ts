import { createRoute } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { adjustOrganizationBalance } from "../../operator/adjust-balance.ts";
import { AdjustBalanceBody, BalanceSchema, OrganizationIdParams, operatorAnswer } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/admin/v1/organizations/{id}/balance",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams, body: jsonBody(AdjustBalanceBody) },
  responses: { 200: operatorAnswer(BalanceSchema) },
});

export function registerAdjustBalance(app: App) {
  app.openapi(route, async (c) =>
    c.json(
      await adjustOrganizationBalance({ ctx: { env: c.env, now: new Date() }, input: { organizationId: c.req.valid("param").id, ...c.req.valid("json") } }),
      200,
    ),
  );
}
