import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { balanceSummary } from "../billing/available-balance.ts";
import { adjustBalanceOverShards } from "../billing/adjust-balance.ts";
import { findOrganization } from "../storage/organizations.ts";
import { databaseOfOrganization } from "./organization-database.ts";

/**
 * Credits or debits an organization (operator), in its shard's database. A debit larger than the available balance (the balance
 * minus the proofs already promised) is refused with what could be debited now.
 */
export async function adjustOrganizationBalance({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env" | "now">;
  input: { organizationId: string; amount: number; reason: string };
}) {
  const { organizationId: id, amount, reason } = input;
  const db = databaseOfOrganization(ctx.env, id);
  if ((await findOrganization(db, id)) === null) throw new ApiError("not_found", { detail: "No such organization." });
  const applied = await adjustBalanceOverShards(ctx.env, id, amount, reason, ctx.now.toISOString());
  const summary = await balanceSummary(ctx.env, id);
  if (!applied) {
    throw new ApiError("debit_exceeds_available_balance", {
      detail: `At most ${Math.max(summary!.available, 0)} can be debited now.`,
      extra: { ...summary },
    });
  }
  return summary!;
}
