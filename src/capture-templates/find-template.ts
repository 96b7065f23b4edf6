import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { findTemplate } from "../storage/capture-templates.ts";

/** A template of the caller's organization and mode, archived ones included; any other is as absent as a missing one. */
export async function templateOrThrow({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller">; input: { id: string } }) {
  const template = await findTemplate(ctx.db, ctx.caller.organizationId, ctx.caller.mode, input.id);
  if (template === null) throw new ApiError("capture_template_not_found");
  return template;
}
