import type { Database } from "../db/client.ts";
import { databaseOfId } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";

/**
 * The database of the shard an organization's id names (docs/adr/0062); an id naming a shard this
 * deployment does not have is an unknown organization, the same 404.
 */
export function databaseOfOrganization(env: Env, organizationId: string): Database {
  const db = databaseOfId(env, organizationId);
  if (db === null) throw new ApiError("not_found", { detail: "No such organization." });
  return db;
}
