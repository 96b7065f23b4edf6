import { database, type Database } from "../db/client.ts";
import { shardBinding, shardOfId } from "../db/shards.ts";
import type { ApiCaller, Env } from "../env.ts";

/**
 * The database holding a capture session or proof the caller names by id (docs/adr/0070): the shard its id
 * names when that is one of the caller's organization's shards (home, then its write shards), else null,
 * and the route answers its not-found exactly as for an unknown id. An organization never wrote to another
 * shard, so nothing of it is there to find, and a stub row left by an unfinished `add-write-shard` opens no
 * shard before its list row does. Every authenticated route finding a session or proof by id goes through
 * here; webhook deliveries and everything else of the organization stay in its home shard, `c.var.db`.
 */
export function callerDatabaseOfId(env: Env, caller: Pick<ApiCaller, "shards">, id: string): Database | null {
  const shard = shardOfId(id);
  if (!caller.shards.includes(shard)) return null;
  const binding = shardBinding(env, shard);
  return binding === undefined ? null : database(binding);
}
