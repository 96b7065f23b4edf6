import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { findOwnDelivery } from "../storage/webhook-deliveries.ts";

/** A delivery of the caller's organization and mode, with its attempts; any other is as absent as a missing one. */
export async function deliveryOrThrow({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env" | "caller">; input: { id: string } }) {
  const found = await findOwnDelivery(ctx.db, ctx.env, ctx.caller.organizationId, ctx.caller.mode, input.id);
  if (found === null) throw new ApiError("webhook_delivery_not_found");
  return found;
}
