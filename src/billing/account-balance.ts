import { type ShardCode, shardDatabase, shardOfId } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { insertSessionWithinBalance, type SessionCreation, type SessionToInsert } from "../storage/capture-sessions.ts";
import { adjustBalance } from "../storage/organizations.ts";
import { balanceAcross, organizationShardsNow } from "./available-balance.ts";

/**
 * The balance decisions of an organization with write shards (docs/adr/0070), made inside its live account's
 * Durable Object one at a time (`ApiAccount.insertLiveSession`, `ApiAccount.adjustBalance`): no statement can
 * count rows of two databases, so the other shards' available balance is read first and the decision is the
 * one conditional statement in the shard written, with that figure added. Nothing else takes from the
 * available balance of such an organization meanwhile: its live creations and debits all come here, and
 * sealing, expiry and completion never lower it (a seal debits the balance and releases the proof's promise
 * together).
 */

/**
 * What the organization's shards other than `written` have available, over the shards its home lists now.
 * The list and the shards the caller expects (its cached list) are read at once, one round trip; when the
 * list has changed since, the shards it names are read again.
 */
async function availableElsewhere(env: Env, organizationId: string, written: ShardCode, expected: readonly ShardCode[]): Promise<number> {
  const guessed = expected.filter((shard) => shard !== written);
  const [{ shards }, guess] = await Promise.all([organizationShardsNow(env, organizationId), balanceAcross(env, organizationId, guessed)]);
  if (!shards.includes(written)) throw new Error(`shard ${written} is not one of ${organizationId}'s (${shards.join(", ")})`);
  const others = shards.filter((shard) => shard !== written);
  if (others.length === guessed.length && others.every((shard) => guessed.includes(shard))) return guess.available;
  return (await balanceAcross(env, organizationId, others)).available;
}

/**
 * Inserts a live session (and its creation's record) in the shard its id names, if the organization's balance
 * over every shard it has now covers every promise plus this one. `expectedShards` are the caller's. Returns
 * its locale, or null when nothing was inserted (the balance refused, or its Idempotency-Key holds a creation
 * there).
 */
export async function insertSessionWithinAccountBalance(
  env: Env,
  row: SessionToInsert,
  creation: SessionCreation,
  expectedShards: readonly ShardCode[],
): Promise<{ locale: string } | null> {
  const written = shardOfId(row.id);
  const othersAvailable = await availableElsewhere(env, row.organizationId, written, expectedShards);
  return insertSessionWithinBalance(shardDatabase(env, written).$client, row, creation, { othersAvailable });
}

/** Adds `amount` to the balance in the home shard; a debit only while the balance over every shard covers it. */
export async function adjustBalanceWithinAccount(
  env: Env,
  organizationId: string,
  amount: number,
  reason: string,
  now: string,
  expectedShards: readonly ShardCode[],
): Promise<boolean> {
  const home = shardOfId(organizationId);
  const othersAvailable = await availableElsewhere(env, organizationId, home, expectedShards);
  return adjustBalance(shardDatabase(env, home), organizationId, amount, reason, now, { othersAvailable });
}
