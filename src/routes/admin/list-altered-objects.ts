import { createRoute, z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { PageQuerySchema } from "../../lib/pagination.ts";
import { listAlteredObjects } from "../../operator/list-altered-objects.ts";
import { operatorAnswer } from "./schema.ts";

const AlteredObjectSchema = z.strictObject({
  proof_id: z.string(),
  organization_id: z.string(),
  mode: z.enum(["test", "live"]),
  key: z.string(),
  entry: z.string(),
  file_id: z.string().nullable(),
  expected_sha256: z.string().nullable(),
  found_sha256: z.string().nullable(),
  missing: z.boolean(),
  mismatch_since: z.string(),
  last_checked_at: z.string(),
});

const AlteredObjectsPage = z.strictObject({ data: z.array(AlteredObjectSchema), has_more: z.boolean(), next_cursor: z.string().nullable() });

const route = createRoute({
  method: "get",
  path: "/admin/v1/altered-objects",
  hide: true,
  middleware: [adminAuth] as const,
  request: { query: PageQuerySchema },
  responses: { 200: operatorAnswer(AlteredObjectsPage) },
});

export function registerListAlteredObjects(app: App) {
  app.openapi(route, async (c) =>
    c.json(await listAlteredObjects({ ctx: { env: c.env, cursorSecret: c.env.WEBHOOK_SECRET_KEY }, input: c.req.valid("query") }), 200),
  );
}
