import type { DomainContext } from "../domain/context.ts";
import { insertOrganization } from "../storage/organizations.ts";

/** An organization with no balance and no key yet (operator). */
export async function createOrganization({ ctx, input }: { ctx: Pick<DomainContext, "db" | "now">; input: { name: string } }) {
  return insertOrganization(ctx.db, input.name, ctx.now.toISOString());
}
