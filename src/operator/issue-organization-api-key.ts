import type { DomainContext } from "../domain/context.ts";
import type { Mode } from "../auth/mode.ts";
import type { Right } from "../auth/rights.ts";
import { ApiError } from "../errors/api-error.ts";
import { issueApiKey } from "../auth/issue-api-key.ts";
import { findOrganization } from "../storage/organizations.ts";
import { databaseOfOrganization } from "./organization-database.ts";

/** A new API key of an existing organization (operator), in its shard; its clear value is answered once. */
export async function issueOrganizationApiKey({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env" | "now">;
  input: { organizationId: string; key: { mode: Mode; rights?: Right[]; name?: string; rate_limit_per_minute?: number } };
}) {
  const { organizationId, key } = input;
  const db = databaseOfOrganization(ctx.env, organizationId);
  if ((await findOrganization(db, organizationId)) === null) throw new ApiError("not_found", { detail: "No such organization." });
  return issueApiKey(
    db,
    { organizationId, mode: key.mode, rights: key.rights, name: key.name, rateLimitPerMinute: key.rate_limit_per_minute },
    ctx.now.toISOString(),
  );
}
