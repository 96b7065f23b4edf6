import { z } from "@hono/zod-openapi";

export const MODES = ["test", "live"] as const;
export type Mode = (typeof MODES)[number];
export const ModeSchema = z.enum(MODES);

/** The key prefix fixes the mode: `sk_test_` for sandbox, `sk_live_` for production. */
export function modeOfKey(key: string): Mode | null {
  if (key.startsWith("sk_test_")) return "test";
  if (key.startsWith("sk_live_")) return "live";
  return null;
}
