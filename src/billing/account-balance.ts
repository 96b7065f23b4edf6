import { type ShardCode, shardDatabase, shardOfId } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { findLiveCreationIn, insertSessionWithinBalance, type LiveCreation, type SessionCreation, type SessionToInsert } from "../storage/capture-sessions.ts";
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
 * list has changed since, the shards it names are read again, and `inShardsNotExpected` runs with that read
 * on the shards other than `written` the caller did not know of (its answer is `found`).
 */
async function availableElsewhere<Found>(
  env: Env,
  organizationId: string,
  written: ShardCode,
  expected: readonly ShardCode[],
  inShardsNotExpected: (shards: ShardCode[]) => Promise<Found | null>,
): Promise<{ available: number; found: Found | null }> {
  const guessed = expected.filter((shard) => shard !== written);
  const [{ shards }, guess] = await Promise.all([organizationShardsNow(env, organizationId), balanceAcross(env, organizationId, guessed)]);
  if (!shards.includes(written)) throw new Error(`shard ${written} is not one of ${organizationId}'s (${shards.join(", ")})`);
  const others = shards.filter((shard) => shard !== written);
  if (others.length === guessed.length && others.every((shard) => guessed.includes(shard))) return { available: guess.available, found: null };
  const notExpected = others.filter((shard) => !expected.includes(shard));
  const [again, found] = await Promise.all([balanceAcross(env, organizationId, others), notExpected.length === 0 ? null : inShardsNotExpected(notExpected)]);
  return { available: again.available, found };
}

/**
 * What a live creation decided by the account came to: the session's locale once inserted; the creation its
 * Idempotency-Key made earlier in a shard the caller did not know of, to be answered again; or null, nothing
 * inserted (the balance refused, or the key holds a creation in the shard written).
 */
export type AccountCreation = { locale: string } | { earlier: LiveCreation } | null;

/**
 * Inserts a live session (and its creation's record) in the shard its id names, if the organization's balance
 * over every shard it has now covers every promise plus this one. `expectedShards` are the caller's, which
 * looked the Idempotency-Key up in each of them; a shard added since (a list cached before a switch) may hold
 * the key's creation, made by a fresher isolate whose answer never reached the key's record: it is looked up
 * there with the balance's second read, and answered again rather than a second session made (forger session
 * 9, W1).
 */
export async function insertSessionWithinAccountBalance(
  env: Env,
  row: SessionToInsert,
  creation: SessionCreation,
  expectedShards: readonly ShardCode[],
  decidedBefore: string,
): Promise<AccountCreation> {
  const written = shardOfId(row.id);
  const elsewhere = await availableElsewhere(env, row.organizationId, written, expectedShards, (shards) =>
    findLiveCreationIn(
      shards.map((shard) => shardDatabase(env, shard).$client),
      creation.keyHash,
      creation.liveAfter,
    ),
  );
  if (elsewhere.found !== null) return { earlier: elsewhere.found };
  return insertSessionWithinBalance(shardDatabase(env, written).$client, row, creation, { othersAvailable: elsewhere.available, decidedBefore });
}

/** Adds `amount` to the balance in the home shard; a debit only while the balance over every shard covers it. */
export async function adjustBalanceWithinAccount(
  env: Env,
  organizationId: string,
  amount: number,
  reason: string,
  now: string,
  expectedShards: readonly ShardCode[],
  decidedBefore: string,
): Promise<boolean> {
  const home = shardOfId(organizationId);
  const { available } = await availableElsewhere(env, organizationId, home, expectedShards, async () => null);
  return adjustBalance(shardDatabase(env, home), organizationId, amount, reason, now, { othersAvailable: available, decidedBefore });
}
