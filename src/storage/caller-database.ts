import { database, type Database } from "../db/client.ts";
import { shardBinding, shardOfId } from "../db/shards.ts";
import type { ApiCaller, Env } from "../env.ts";
import { writeShardsOf } from "./write-shards.ts";

/**
 * The database holding a capture session or proof the caller names by id (docs/adr/0070): the shard its id
 * names when that is one of the caller's organization's shards (home, then its write shards), else null,
 * and the route answers its not-found exactly as for an unknown id. An organization never wrote to another
 * shard, so nothing of it is there to find, and a stub row left by an unfinished `add-write-shard` opens no
 * shard before its list row does. Every authenticated route finding a session or proof by id goes through
 * here; webhook deliveries and everything else of the organization stay in its home shard, `c.var.db`.
 *
 * The caller's list may be up to 10 s old (its key's cache): an id naming a shard of this deployment missing
 * from it reads the list again in `home` before the 404, so a session created by another isolate just after a
 * switch is found at once (forger session 9, W5). Only such a miss pays that one indexed statement.
 */
export async function callerDatabaseOfId(env: Env, caller: Pick<ApiCaller, "organizationId" | "shards">, home: Database, id: string): Promise<Database | null> {
  const shard = shardOfId(id);
  const binding = shardBinding(env, shard);
  if (binding === undefined) return null;
  if (!caller.shards.includes(shard) && !(await writeShardsOf(home, caller.organizationId)).includes(shard)) return null;
  return database(binding);
}
