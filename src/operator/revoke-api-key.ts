import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { revokeApiKey } from "../storage/api-keys.ts";

/** Revokes a key at once (operator); an unknown key is a 404. */
export async function revokeOrganizationApiKey({ ctx, input }: { ctx: Pick<DomainContext, "db" | "now">; input: { id: string } }): Promise<void> {
  if (!(await revokeApiKey(ctx.db, input.id, ctx.now.toISOString()))) throw new ApiError("not_found", { detail: "No such API key." });
}
