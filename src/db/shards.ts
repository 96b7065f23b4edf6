import type { Env } from "../env.ts";
import { randomBase36 } from "../lib/ids.ts";
import { database, type Database } from "./client.ts";

/**
 * The D1 databases the service writes to (docs/adr/0062). An organization lives whole in one shard, chosen when it
 * is created; every id minted for it names that shard in its first two characters after the prefix
 * (`prf_01…`), and so does its API key and its capture links, so a request finds its database without asking a
 * directory. Shard `00` is the binding `DB` (the first database, where everything lived before shards); shard
 * `NN` is the binding `DB_NN`. `SHARDS` lists the shards that exist, `OPEN_SHARDS` those taking new
 * organizations (a shard closes at 70 % of its 10 GB, docs/operations.md).
 */
export type ShardCode = string;

/** Legacy ids (before shards) have 20 random characters after the prefix; a sharded id has its code and 20 more. */
const SHARD_CODE = /^[0-9a-z]{2}$/;
const RANDOM_LENGTH = 20;
export const FIRST_SHARD: ShardCode = "00";

function listOf(value: string | undefined): ShardCode[] {
  return (value ?? "")
    .split(",")
    .map((code) => code.trim())
    .filter((code) => code !== "");
}

/** The shards that exist, from `SHARDS` (`00` alone when unset: one database). */
export function shardCodes(env: Pick<Env, "SHARDS">): ShardCode[] {
  const codes = listOf(env.SHARDS);
  return codes.length === 0 ? [FIRST_SHARD] : codes;
}

/** The shards a new organization may be placed on, from `OPEN_SHARDS` (all of them when unset). */
export function openShardCodes(env: Pick<Env, "SHARDS" | "OPEN_SHARDS">): ShardCode[] {
  const open = listOf(env.OPEN_SHARDS);
  return open.length === 0 ? shardCodes(env) : open;
}

export function shardBindingName(code: ShardCode): string {
  return code === FIRST_SHARD ? "DB" : `DB_${code}`;
}

/** The D1 binding of a shard, or undefined for a code this deployment does not have. */
export function shardBinding(env: Env, code: ShardCode): D1Database | undefined {
  if (!SHARD_CODE.test(code) || !shardCodes(env).includes(code)) return undefined;
  const binding = (env as unknown as Record<string, unknown>)[shardBindingName(code)];
  return binding === undefined ? undefined : (binding as D1Database);
}

/** The database client of a shard this deployment has; an unknown code is a configuration error. */
export function shardDatabase(env: Env, code: ShardCode): Database {
  const binding = shardBinding(env, code);
  if (binding === undefined) throw new Error(`No D1 binding ${shardBindingName(code)} for shard ${code} (SHARDS=${env.SHARDS ?? ""})`);
  return database(binding);
}

/** Every shard with its client: what a sweep or an operator's listing visits. */
export function allShardDatabases(env: Env): Array<{ shard: ShardCode; db: Database }> {
  return shardCodes(env).map((shard) => ({ shard, db: shardDatabase(env, shard) }));
}

/**
 * The shard an id (or a token or key body) names: the two characters after the prefix's `_` when the body is
 * long enough to hold a code, else `00` (minted before shards existed, when `DB` was the only database).
 * `randomLength` is the length of the body's random part.
 */
export function shardOfBody(body: string, randomLength: number = RANDOM_LENGTH): ShardCode {
  if (body.length === randomLength + 2) return body.slice(0, 2);
  return FIRST_SHARD;
}

export function shardOfId(id: string): ShardCode {
  const underscore = id.indexOf("_");
  return shardOfBody(underscore < 0 ? id : id.slice(underscore + 1));
}

/**
 * The client of the shard an id names, or null when this deployment has no such shard: the id was never
 * minted here, so the caller answers as for any unknown id (404), never 5xx.
 */
export function databaseOfId(env: Env, id: string): Database | null {
  const binding = shardBinding(env, shardOfId(id));
  return binding === undefined ? null : database(binding);
}

/** `items` grouped by the shard their ids name (`idOf`), each group in the order given. */
export function itemsByShard<Item>(items: Iterable<Item>, idOf: (item: Item) => string): Map<ShardCode, Item[]> {
  const byShard = new Map<ShardCode, Item[]>();
  for (const item of items) {
    const shard = shardOfId(idOf(item));
    const held = byShard.get(shard);
    if (held === undefined) byShard.set(shard, [item]);
    else held.push(item);
  }
  return byShard;
}

/** A new id living in `shard`: `<prefix>_<shard><20 random base-36 characters>`. */
export function newShardedId(prefix: string, shard: ShardCode): string {
  return `${prefix}_${shard}${randomBase36(RANDOM_LENGTH)}`;
}

/**
 * Where an organization's sessions and proofs live (docs/adr/0070): its home shard (the one its id names),
 * then the write shards it was given as it outgrew it, oldest first; the last is where new sessions go.
 */
export function organizationShards(organizationId: string, writeShards: readonly ShardCode[]): { writeShard: ShardCode; shards: ShardCode[] } {
  const shards = [shardOfId(organizationId)];
  for (const shard of writeShards) if (!shards.includes(shard)) shards.push(shard);
  return { writeShard: writeShards.at(-1) ?? shards[0] ?? FIRST_SHARD, shards };
}
