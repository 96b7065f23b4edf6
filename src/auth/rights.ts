import { z } from "@hono/zod-openapi";

/** Rights a key may carry; each route names the one it needs next to its definition. */
export const RIGHTS = ["create_proof", "read_proof", "manage_webhooks", "manage_templates", "manage_settings"] as const;
export type Right = (typeof RIGHTS)[number];
export const RightSchema = z.enum(RIGHTS);
