import { and, eq, isNull, sql } from "drizzle-orm";
import { organizationShards } from "../db/shards.ts";
import type { Database } from "../db/client.ts";
import { apiKeys, organizations } from "../db/schema/index.ts";
import type { ApiCaller } from "../env.ts";
import type { Right } from "../auth/rights.ts";
import type { Mode } from "../auth/mode.ts";

export async function findCallerByKeyHash(db: Database, keyHash: string): Promise<ApiCaller | null> {
  const row = await db
    .select({
      keyId: apiKeys.id,
      organizationId: apiKeys.organizationId,
      organizationName: organizations.name,
      mode: apiKeys.mode,
      rights: apiKeys.rights,
      rateLimitPerMinute: apiKeys.rateLimitPerMinute,
      writeShards: sql<string>`(SELECT json_group_array(shard) FROM (SELECT shard FROM organization_write_shards WHERE organization_id = ${apiKeys.organizationId} ORDER BY from_at, shard))`,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();
  if (!row) return null;
  const { writeShards, ...caller } = row;
  return { ...caller, mode: row.mode as Mode, rights: row.rights as Right[], ...organizationShards(row.organizationId, JSON.parse(writeShards) as string[]) };
}

export interface NewApiKey {
  id: string;
  organizationId: string;
  mode: Mode;
  name: string | null;
  keyHash: string;
  keyPrefix: string;
  rights: Right[];
  rateLimitPerMinute: number;
  createdAt: string;
}

export async function insertApiKey(db: Database, key: NewApiKey): Promise<void> {
  await db.insert(apiKeys).values(key);
}

/** Marks a key revoked; returns false when no such key exists. */
export async function revokeApiKey(db: Database, keyId: string, revokedAt: string): Promise<boolean> {
  const existing = await db.select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!existing) return false;
  if (existing.revokedAt === null) await db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId));
  return true;
}
