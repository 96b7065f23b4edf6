import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { organizations, organizationWriteShards } from "../db/schema/index.ts";
import type { ShardCode } from "../db/shards.ts";

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
