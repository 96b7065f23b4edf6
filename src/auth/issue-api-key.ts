import type { Database } from "../db/client.ts";
import { shardOfId, newShardedId } from "../db/shards.ts";
import { insertApiKey } from "../storage/api-keys.ts";
import { sha256Hex } from "../lib/crypto.ts";
import type { Mode } from "./mode.ts";
import { RIGHTS, type Right } from "./rights.ts";
import { keyPrefixOf, newApiKeyValue } from "./key-layout.ts";

export interface IssueApiKeyInput {
  organizationId: string;
  mode: Mode;
  rights?: Right[];
  name?: string | null;
  rateLimitPerMinute?: number;
}

/**
 * Creates a key in `db`, the database of the organization's shard; the key and its id name that shard, so
 * a request and a revocation find it there. Its clear value is returned once and only its SHA-256 is stored.
 */
export async function issueApiKey(db: Database, input: IssueApiKeyInput, now: string): Promise<{ id: string; key: string }> {
  const shard = shardOfId(input.organizationId);
  const key = newApiKeyValue(input.mode, shard);
  const id = newShardedId("key", shard);
  await insertApiKey(db, {
    id,
    organizationId: input.organizationId,
    mode: input.mode,
    name: input.name ?? null,
    keyHash: await sha256Hex(key),
    keyPrefix: keyPrefixOf(key),
    rights: [...new Set(input.rights ?? RIGHTS)],
    rateLimitPerMinute: input.rateLimitPerMinute ?? 60,
    createdAt: now,
  });
  return { id, key };
}
