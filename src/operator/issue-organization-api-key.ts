import type { DomainContext } from "../domain/context.ts";
import type { Mode } from "../auth/mode.ts";
import type { Right } from "../auth/rights.ts";
import { ApiError } from "../errors/api-error.ts";
import { issueApiKey } from "../auth/issue-api-key.ts";
import { findOrganization } from "../storage/organizations.ts";

/** A new API key of an existing organization (operator); its clear value is answered once. */
export async function issueOrganizationApiKey({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "db" | "now">;
  input: { organizationId: string; key: { mode: Mode; rights?: Right[]; name?: string; rate_limit_per_minute?: number } };
}) {
  const { organizationId, key } = input;
  if ((await findOrganization(ctx.db, organizationId)) === null) throw new ApiError("not_found", { detail: "No such organization." });
  return issueApiKey(
    ctx.db,
    { organizationId, mode: key.mode, rights: key.rights, name: key.name, rateLimitPerMinute: key.rate_limit_per_minute },
    ctx.now.toISOString(),
  );
}
