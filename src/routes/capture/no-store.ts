import type { Context } from "hono";
import type { HonoEnv } from "../../env.ts";

/** A capture link's answers are the person's own: never cached, and the token never sent on as a referrer. */
export function noStore(c: Context<HonoEnv>) {
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "no-referrer");
}
