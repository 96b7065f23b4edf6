import type { DomainContext } from "../domain/context.ts";
import { openShardCodes, shardDatabase, type ShardCode } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { countOrganizations, insertOrganization } from "../storage/organizations.ts";

/**
 * The open shard with the fewest organizations (the first in OPEN_SHARDS on a tie), one COUNT per open
 * shard. By count, not by size: a new organization starts empty and what it will grow to is unknown, so
 * spreading organizations spreads the writes and the request rate to come; placing by size would send every
 * new organization to a newly added shard until it caught up, all new customers' load on one database.
 * Size is what closes a shard to new organizations (OPEN_SHARDS, at 70 % of it: docs/operations.md).
 */
async function shardWithFewestOrganizations(env: Env): Promise<ShardCode> {
  const open = openShardCodes(env);
  const counts = await Promise.all(open.map((shard) => countOrganizations(shardDatabase(env, shard))));
  let chosen = 0;
  for (let index = 1; index < open.length; index++) if (counts[index]! < counts[chosen]!) chosen = index;
  return open[chosen]!;
}

/**
 * An organization with no balance and no key yet (operator), on the shard named (one of OPEN_SHARDS, else
 * 422 `shard_not_open`) or the open one with the fewest organizations. It lives whole in that shard.
 */
export async function createOrganization({ ctx, input }: { ctx: Pick<DomainContext, "env" | "now">; input: { name: string; shard?: ShardCode } }) {
  const { env } = ctx;
  if (input.shard !== undefined && !openShardCodes(env).includes(input.shard)) {
    throw new ApiError("shard_not_open", {
      field: "/shard",
      detail: `Shard ${input.shard} takes no new organizations here; the open shards are ${openShardCodes(env).join(", ")}.`,
    });
  }
  const shard = input.shard ?? (await shardWithFewestOrganizations(env));
  const organization = await insertOrganization(shardDatabase(env, shard), shard, input.name, ctx.now.toISOString());
  return { ...organization, shard };
}
