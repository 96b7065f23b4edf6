import { createRoute, type z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { ApiError } from "../../errors/api-error.ts";
import { nowIso } from "../../lib/time.ts";
import { adjustBalance, findOrganization, insertOrganization } from "../../storage/organizations.ts";
import { revokeApiKey } from "../../storage/api-keys.ts";
import { issueApiKey } from "../../auth/issue-api-key.ts";
import { balanceSummary } from "../../billing/available-balance.ts";
import {
  AdjustBalanceBody,
  BalanceSchema,
  CreateApiKeyBody,
  CreatedApiKeySchema,
  CreateOrganizationBody,
  OrganizationIdParams,
  OrganizationSchema,
} from "./schema.ts";

// Operator routes: hidden from the public OpenAPI document, authenticated with ADMIN_TOKEN.
const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });
const ok = <T extends z.ZodType>(schema: T) => ({ description: "OK", content: { "application/json": { schema } } });

const createOrganization = createRoute({
  method: "post",
  path: "/admin/v1/organizations",
  hide: true,
  middleware: [adminAuth] as const,
  request: { body: json(CreateOrganizationBody) },
  responses: { 201: ok(OrganizationSchema) },
});

const createApiKey = createRoute({
  method: "post",
  path: "/admin/v1/organizations/{id}/api-keys",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams, body: json(CreateApiKeyBody) },
  responses: { 201: ok(CreatedApiKeySchema) },
});

const deleteApiKey = createRoute({
  method: "delete",
  path: "/admin/v1/api-keys/{id}",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams },
  responses: { 204: { description: "Revoked" } },
});

const adjustOrganizationBalance = createRoute({
  method: "post",
  path: "/admin/v1/organizations/{id}/balance",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams, body: json(AdjustBalanceBody) },
  responses: { 200: ok(BalanceSchema) },
});

export function registerAdminRoutes(app: App) {
  app.openapi(createOrganization, async (c) => {
    const organization = await insertOrganization(c.var.db, c.req.valid("json").name, nowIso());
    return c.json(organization, 201);
  });

  app.openapi(createApiKey, async (c) => {
    const db = c.var.db;
    const { id } = c.req.valid("param");
    if ((await findOrganization(db, id)) === null) throw new ApiError("not_found", { detail: "No such organization." });
    const body = c.req.valid("json");
    const created = await issueApiKey(
      db,
      { organizationId: id, mode: body.mode, rights: body.rights, name: body.name, rateLimitPerMinute: body.rate_limit_per_minute },
      nowIso(),
    );
    return c.json(created, 201);
  });

  app.openapi(deleteApiKey, async (c) => {
    const revoked = await revokeApiKey(c.var.db, c.req.valid("param").id, nowIso());
    if (!revoked) throw new ApiError("not_found", { detail: "No such API key." });
    return c.body(null, 204);
  });

  app.openapi(adjustOrganizationBalance, async (c) => {
    const db = c.var.db;
    const { id } = c.req.valid("param");
    const { amount, reason } = c.req.valid("json");
    if ((await findOrganization(db, id)) === null) throw new ApiError("not_found", { detail: "No such organization." });
    const applied = await adjustBalance(db, id, amount, reason, nowIso());
    const summary = await balanceSummary(db, id);
    if (!applied) {
      throw new ApiError("debit_exceeds_available_balance", {
        detail: `At most ${Math.max(summary!.available, 0)} can be debited now.`,
        extra: { ...summary },
      });
    }
    return c.json(summary!, 200);
  });
}
