import type { Database } from "../db/client.ts";
import { type ShardCode, shardOfId } from "../db/shards.ts";
import { markTemplateUsed } from "../storage/capture-templates.ts";
import type { TemplateSnapshot } from "./snapshot.ts";

/**
 * Before a session is written outside the organization's home shard (its write shard, or an after's
 * before's shard: docs/adr/0070), marks its template used in the home shard, where templates live and
 * where `in_use` and the live freeze are read: they cannot see that shard's sessions. A session written
 * home needs nothing (the home shard sees it), so an organization with one shard pays no round trip more.
 */
export async function recordTemplateUse(
  homeDb: Database,
  organizationId: string,
  placed: { snapshot: TemplateSnapshot; shard: ShardCode },
  now: Date,
): Promise<void> {
  if (placed.snapshot.id === null || placed.shard === shardOfId(organizationId)) return;
  await markTemplateUsed(homeDb, organizationId, placed.snapshot.id, now.toISOString());
}
