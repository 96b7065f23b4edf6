import type { DomainContext } from "../domain/context.ts";
import { setAllowedReturnOrigins } from "../storage/settings.ts";
import { normaliseReturnOrigin } from "./return-origins.ts";

/**
 * Replaces the caller's mode's allowed return origins with the given list, normalised and without
 * duplicates; answers it. The other mode's list is left as it is (docs/adr/0029).
 */
export async function updateSettings({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: { allowed_return_origins: string[] } }) {
  const origins = [...new Set(input.allowed_return_origins.map(normaliseReturnOrigin))];
  await setAllowedReturnOrigins(ctx.db, ctx.caller.organizationId, ctx.caller.mode, origins, ctx.now.toISOString());
  return origins;
}
