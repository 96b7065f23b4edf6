import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { revokeApiKey } from "../storage/api-keys.ts";
import { forgetCallerKey } from "../auth/caller-cache.ts";
import { databaseOfId } from "../db/shards.ts";

/**
 * Revokes a key (operator) in the shard its id names; an unknown key, or one naming no shard here, is a 404. This isolate forgets the key at once; the others
 * within the caller cache's bound (src/auth/caller-cache.ts).
 */
export async function revokeOrganizationApiKey({ ctx, input }: { ctx: Pick<DomainContext, "env" | "now">; input: { id: string } }): Promise<void> {
  const db = databaseOfId(ctx.env, input.id);
  if (db === null || !(await revokeApiKey(db, input.id, ctx.now.toISOString()))) throw new ApiError("not_found", { detail: "No such API key." });
  forgetCallerKey(input.id);
}
