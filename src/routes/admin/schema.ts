import { z } from "@hono/zod-openapi";
import { ModeSchema } from "../../auth/mode.ts";
import { RightSchema } from "../../auth/rights.ts";

export const OrganizationIdParams = z.object({ id: z.string().min(1).max(80) });

/** `shard`: one of OPEN_SHARDS (else 422 `shard_not_open`); left out, the open shard with the fewest organizations. */
export const CreateOrganizationBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  shard: z
    .string()
    .regex(/^[0-9a-z]{2}$/)
    .optional(),
});
/** `shard`: where the organization lives whole (docs/adr/0062); its id and its keys name it too. */
export const OrganizationSchema = z.strictObject({ id: z.string(), name: z.string(), balance: z.number().int(), shard: z.string() });

export const CreateApiKeyBody = z.strictObject({
  mode: ModeSchema,
  rights: z.array(RightSchema).max(5).optional(),
  name: z.string().max(200).optional(),
  rate_limit_per_minute: z.number().int().min(1).max(100_000).optional(),
});
export const CreatedApiKeySchema = z.strictObject({ id: z.string(), key: z.string() });

export const AdjustBalanceBody = z.strictObject({
  amount: z.number().int().min(-1_000_000_000).max(1_000_000_000),
  reason: z.string().trim().min(1).max(500),
});
export const BalanceSchema = z.strictObject({ balance: z.number().int(), available: z.number().int() });

// Operator routes are hidden from the public OpenAPI document, so their answers carry no translated text.
export const operatorAnswer = <T extends z.ZodType>(schema: T) => ({ description: "OK", content: { "application/json": { schema } } });
