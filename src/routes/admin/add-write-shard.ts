import { createRoute, z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { adminAuth } from "../../middleware/admin-auth.ts";
import { jsonBody } from "../../openapi/bodies.ts";
import { addWriteShard } from "../../operator/add-write-shard.ts";
import { OrganizationIdParams, operatorAnswer } from "./schema.ts";

/** `shard`: one of OPEN_SHARDS (else 422 `shard_not_open`), neither home nor an earlier write shard (else 409). */
const AddWriteShardBody = z.strictObject({ shard: z.string().regex(/^[0-9a-z]{2}$/) });
/** Every shard of the organization, home first then its write shards oldest first, and where new sessions go. */
const OrganizationShardsSchema = z.strictObject({ id: z.string(), shards: z.array(z.string()), write_shard: z.string() });

const route = createRoute({
  method: "post",
  path: "/admin/v1/organizations/{id}/write-shards",
  hide: true,
  middleware: [adminAuth] as const,
  request: { params: OrganizationIdParams, body: jsonBody(AddWriteShardBody) },
  responses: { 200: operatorAnswer(OrganizationShardsSchema) },
});

export function registerAddWriteShard(app: App) {
  app.openapi(route, async (c) =>
    c.json(await addWriteShard({ ctx: { env: c.env, now: new Date() }, input: { organizationId: c.req.valid("param").id, ...c.req.valid("json") } }), 200),
  );
}
