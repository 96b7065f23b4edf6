import { shardDatabase, shardOfId } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { insertSessionWithinBalance, type SessionCreation, type SessionToInsert } from "../storage/capture-sessions.ts";
import { adjustBalance } from "../storage/organizations.ts";
import { balanceAcross, organizationShardsNow } from "./available-balance.ts";

/**
 * The balance decisions of an organization with write shards (docs/adr/0070), made inside its live account's
 * Durable Object one at a time (`ApiAccount.decideOnBalance`): no statement can count rows of two databases,
 * so the other shards' available balance is read first and the decision is the one conditional statement in
 * the shard written, with that figure added. Nothing else takes from the available balance of such an
 * organization meanwhile: its live creations and debits all come here, and sealing, expiry and completion
 * never lower it (a seal debits the balance and releases the proof's promise together).
 */

/**
 * Inserts a live session (and its creation's record) in the shard its id names, if the organization's balance
 * over every shard it has now covers every promise plus this one. Returns its locale, or null when nothing was
 * inserted (the balance refused, or its Idempotency-Key holds a creation there).
 */
export async function insertSessionWithinAccountBalance(env: Env, row: SessionToInsert, creation: SessionCreation): Promise<{ locale: string } | null> {
  const target = shardOfId(row.id);
  const { shards } = await organizationShardsNow(env, row.organizationId);
  if (!shards.includes(target)) throw new Error(`session ${row.id} names shard ${target}, not one of ${row.organizationId}'s (${shards.join(", ")})`);
  const others = await balanceAcross(
    env,
    row.organizationId,
    shards.filter((shard) => shard !== target),
  );
  return insertSessionWithinBalance(shardDatabase(env, target).$client, row, creation, { othersAvailable: others.available });
}

/** Adds `amount` to the balance in the home shard; a debit only while the balance over every shard covers it. */
export async function adjustBalanceWithinAccount(env: Env, organizationId: string, amount: number, reason: string, now: string): Promise<boolean> {
  const home = shardOfId(organizationId);
  const { shards } = await organizationShardsNow(env, organizationId);
  const others = await balanceAcross(
    env,
    organizationId,
    shards.filter((shard) => shard !== home),
  );
  return adjustBalance(shardDatabase(env, home), organizationId, amount, reason, now, { othersAvailable: others.available });
}
