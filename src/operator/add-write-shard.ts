import type { DomainContext } from "../domain/context.ts";
import { openShardCodes, organizationShards, shardDatabase, shardOfId, type ShardCode } from "../db/shards.ts";
import { ApiError } from "../errors/api-error.ts";
import { findOrganization } from "../storage/organizations.ts";
import { insertStubOrganization, insertWriteShard, writeShardsOf } from "../storage/write-shards.ts";
import { databaseOfOrganization } from "./organization-database.ts";

/**
 * Gives an organization a write shard (operator, docs/adr/0070): from now on its new capture sessions, and
 * the proofs, files and events they make, are written to `shard`; its keys, templates, themes, settings,
 * webhooks and top-ups stay home. Callers see it within the 10 s their key is cached.
 *
 * The shard must be open (in `OPEN_SHARDS`), not merely one of `SHARDS`: a closed shard keeps its last 30 %
 * for the growth of the organizations already on it (docs/operations.md, "Closing a shard at 70 %"), and a
 * write shard takes a whole new period of an organization that outgrew one, as much as any new organization.
 *
 * The stub organization row goes into the write shard first, then the list row home: a key reading the list
 * never mints a session for a shard lacking the row its foreign keys need. A retry of the latest write shard
 * (the call that failed after a write, or answered and was lost) writes nothing more and answers the same;
 * the home shard or an earlier write shard is refused, since a shard holds one period of the organization.
 */
export async function addWriteShard({ ctx, input }: { ctx: Pick<DomainContext, "env" | "now">; input: { organizationId: string; shard: ShardCode } }) {
  const { env } = ctx;
  const { organizationId, shard } = input;
  const home = databaseOfOrganization(env, organizationId);
  const organization = await findOrganization(home, organizationId);
  if (organization === null) throw new ApiError("not_found", { detail: "No such organization." });
  if (!openShardCodes(env).includes(shard)) {
    throw new ApiError("shard_not_open", {
      field: "/shard",
      detail: `Shard ${shard} takes no new writes here; the open shards are ${openShardCodes(env).join(", ")}.`,
    });
  }
  const writeShards = await writeShardsOf(home, organizationId);
  if (writeShards.at(-1) !== shard) {
    if (shard === shardOfId(organizationId) || writeShards.includes(shard)) {
      throw new ApiError("shard_already_in_organization", {
        field: "/shard",
        detail: `Organization ${organizationId} already ${shard === shardOfId(organizationId) ? "lives on" : "wrote a period to"} shard ${shard}.`,
      });
    }
    const now = ctx.now.toISOString();
    await insertStubOrganization(shardDatabase(env, shard), organization, now);
    await insertWriteShard(home, organizationId, shard, now);
  }
  // Read again after a write: the list as the organization's keys will read it, a racing call's row included.
  const written = writeShards.at(-1) === shard ? writeShards : await writeShardsOf(home, organizationId);
  const { writeShard, shards } = organizationShards(organizationId, written);
  return { id: organizationId, shards, write_shard: writeShard };
}
