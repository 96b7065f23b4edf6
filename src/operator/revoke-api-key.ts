import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { revokeApiKey } from "../storage/api-keys.ts";
import { forgetCallerKey } from "../auth/caller-cache.ts";

/**
 * Revokes a key (operator); an unknown key is a 404. This isolate forgets the key at once; the others
 * within the caller cache's bound (src/auth/caller-cache.ts).
 */
export async function revokeOrganizationApiKey({ ctx, input }: { ctx: Pick<DomainContext, "db" | "now">; input: { id: string } }): Promise<void> {
  if (!(await revokeApiKey(ctx.db, input.id, ctx.now.toISOString()))) throw new ApiError("not_found", { detail: "No such API key." });
  forgetCallerKey(input.id);
}
