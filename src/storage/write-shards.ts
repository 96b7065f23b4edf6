import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { organizations, organizationWriteShards } from "../db/schema/index.ts";
import { itemsByShard, organizationShards, shardDatabase, shardOfId, type ShardCode } from "../db/shards.ts";
import type { Env } from "../env.ts";

/**
 * The shards an organization writes to past its home shard, oldest first (docs/adr/0070), read in its home
 * shard; empty for an organization living whole in its home shard.
 */
export async function writeShardsOf(home: Database, organizationId: string): Promise<ShardCode[]> {
  const rows = await home
    .select({ shard: organizationWriteShards.shard })
    .from(organizationWriteShards)
    .where(eq(organizationWriteShards.organizationId, organizationId))
    .orderBy(asc(organizationWriteShards.fromAt), asc(organizationWriteShards.shard))
    .all();
  return rows.map((row) => row.shard);
}

/**
 * The organization's stub row in a write shard: its id and name, and a balance of 0 that the proofs sealed
 * there debit (the organization's balance is the sum of its rows, docs/adr/0070). It keeps every foreign
 * key of that shard as it is; nothing else of the organization is read there. Kept when already there.
 */
export async function insertStubOrganization(target: Database, organization: { id: string; name: string }, now: string): Promise<void> {
  await target.insert(organizations).values({ id: organization.id, name: organization.name, balance: 0, createdAt: now, updatedAt: now }).onConflictDoNothing();
}

/** Adds a write shard to an organization's list in its home shard; returns false when it was already there. */
export async function insertWriteShard(home: Database, organizationId: string, shard: ShardCode, fromAt: string): Promise<boolean> {
  const result = await home.run(
    sql`INSERT INTO organization_write_shards (organization_id, shard, from_at) VALUES (${organizationId}, ${shard}, ${fromAt}) ON CONFLICT DO NOTHING`,
  );
  return result.meta.changes === 1;
}

/**
 * An organization's shards as the sealing of one of its proofs reads them (docs/adr/0070): the proof's own database
 * reused, any other opened from the Worker's env, and the list of its write shards read in its home shard once at
 * most, and only when something asks for it: what an organization in one shard has always paid.
 */
export interface ProofShards {
  /** The organization's home shard (the one its id names), where everything it sealed before write shards is. */
  readonly home: ShardCode;
  /** The proof's own shard (the one its id names), always one of the organization's. */
  readonly own: ShardCode;
  open(shard: ShardCode): Database;
  /** Home first, then the write shards, oldest first. */
  list(): Promise<readonly ShardCode[]>;
}

export function proofShards(env: Env, db: Database, proof: { id: string; organizationId: string }): ProofShards {
  const home = shardOfId(proof.organizationId);
  const own = shardOfId(proof.id);
  const open = (shard: ShardCode) => (shard === own ? db : shardDatabase(env, shard));
  let listed: Promise<readonly ShardCode[]> | undefined;
  const list = () => {
    listed ??= writeShardsOf(open(home), proof.organizationId).then((writeShards) => organizationShards(proof.organizationId, writeShards).shards);
    return listed;
  };
  return { home, own, open, list };
}

/**
 * `query` asked at once in each of the organization's shards that `items` name by their ids, with the items naming
 * it, the answers merged. An item naming a shard that is not the organization's is asked nowhere: nothing of the
 * organization is there, and an id read from the bucket may name a shard this deployment does not have. The list of
 * shards is read only when an item names one other than home and the proof's own.
 */
export async function askedInTheirShards<Item, Answer>(
  shards: ProofShards,
  items: readonly Item[],
  idOf: (item: Item) => string,
  query: (db: Database, items: Item[]) => Promise<Map<string, Answer>>,
): Promise<Map<string, Answer>> {
  const byShard = itemsByShard(items, idOf);
  const known = [shards.home, shards.own];
  const organizations = [...byShard.keys()].every((shard) => known.includes(shard)) ? known : await shards.list();
  const answers = await Promise.all([...byShard].filter(([shard]) => organizations.includes(shard)).map(([shard, held]) => query(shards.open(shard), held)));
  return new Map(answers.flatMap((answer) => [...answer]));
}
