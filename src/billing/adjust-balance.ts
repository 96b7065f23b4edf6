import { shardDatabase, shardOfId } from "../db/shards.ts";
import { apiAccountName } from "../durable/api-account.ts";
import { namedStub } from "../durable/named-stub.ts";
import type { Env } from "../env.ts";
import { adjustBalance } from "../storage/organizations.ts";
import { organizationShardsNow } from "./available-balance.ts";

/**
 * Adds `amount` to an organization's balance (its home row) and records why; a debit only while what is
 * available over all its shards covers it. Returns whether it applied.
 *
 * Without a write shard this is today's one batch in the home shard, on condition that there is still none
 * (docs/adr/0070). With write shards the debit is routed through the live account's Durable Object
 * (`ApiAccount.adjustBalance`) rather than computing the other shards' available here first: the object also
 * decides every live creation of the organization, one at a time, so no creation in a write shard can take
 * what the debit counted between its read and its write. A credit never needs the object: it covers more.
 */
export async function adjustBalanceOverShards(env: Env, organizationId: string, amount: number, reason: string, now: string): Promise<boolean> {
  const home = shardDatabase(env, shardOfId(organizationId));
  if (await adjustBalance(home, organizationId, amount, reason, now, { homeOnly: true })) return true;
  if (amount >= 0) return false;
  const { shards } = await organizationShardsNow(env, organizationId);
  if (shards.length === 1) return false;
  return namedStub(env.API_ACCOUNT, apiAccountName({ organizationId, mode: "live" })).adjustBalance(organizationId, amount, reason, now, shards);
}
