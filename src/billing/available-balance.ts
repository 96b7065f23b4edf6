import { organizationShards, type ShardCode, shardDatabase, shardOfId } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { balanceInShard } from "../storage/reservations.ts";
import { writeShardsOf } from "../storage/write-shards.ts";

export interface BalanceSummary {
  balance: number;
  /** The balance minus the proofs already promised: open live capture sessions and live proofs not yet sealed. */
  available: number;
}

/**
 * The organization's shards as its home shard lists them now (docs/adr/0070), not as a cached caller
 * remembers them: what a decision on the balance must count.
 */
export async function organizationShardsNow(env: Env, organizationId: string): Promise<{ writeShard: ShardCode; shards: ShardCode[] }> {
  return organizationShards(organizationId, await writeShardsOf(shardDatabase(env, shardOfId(organizationId)), organizationId));
}

/**
 * The organization's rows in these shards, summed (a shard lacking its row counts 0): the home row holds the
 * top-ups, a write shard's stub row what the proofs sealed there debited (docs/adr/0070). One statement a
 * shard, all at once.
 */
export async function balanceAcross(env: Env, organizationId: string, shards: readonly ShardCode[]): Promise<BalanceSummary> {
  const rows = await Promise.all(shards.map((shard) => balanceInShard(shardDatabase(env, shard), organizationId)));
  return rows.reduce<BalanceSummary>((sum, row) => ({ balance: sum.balance + (row?.balance ?? 0), available: sum.available + (row?.available ?? 0) }), {
    balance: 0,
    available: 0,
  });
}

/**
 * The organization's balance and what is available of it, over every shard it has now; null when its home
 * shard has no such organization. An organization living in its home shard alone costs its one statement and
 * the list's read, together.
 */
export async function balanceSummary(env: Env, organizationId: string): Promise<BalanceSummary | null> {
  const home = shardDatabase(env, shardOfId(organizationId));
  const [own, writeShards] = await Promise.all([balanceInShard(home, organizationId), writeShardsOf(home, organizationId)]);
  if (own === null) return null;
  const others = organizationShards(organizationId, writeShards).shards.slice(1);
  if (others.length === 0) return own;
  const elsewhere = await balanceAcross(env, organizationId, others);
  return { balance: own.balance + elsewhere.balance, available: own.available + elsewhere.available };
}
