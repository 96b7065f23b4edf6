import type { Database } from "../db/client.ts";
import { insertApiKey } from "../storage/api-keys.ts";
import { newId } from "../lib/ids.ts";
import { randomToken, sha256Hex } from "../lib/crypto.ts";
import type { Mode } from "./mode.ts";
import { RIGHTS, type Right } from "./rights.ts";

export interface IssueApiKeyInput {
  organizationId: string;
  mode: Mode;
  rights?: Right[];
  name?: string | null;
  rateLimitPerMinute?: number;
}

/** Creates a key; its clear value is returned once and only its SHA-256 is stored. */
export async function issueApiKey(db: Database, input: IssueApiKeyInput, now: string): Promise<{ id: string; key: string }> {
  const key = `sk_${input.mode}_${randomToken(24)}`;
  const id = newId("key");
  await insertApiKey(db, {
    id,
    organizationId: input.organizationId,
    mode: input.mode,
    name: input.name ?? null,
    keyHash: await sha256Hex(key),
    keyPrefix: key.slice(0, 12),
    rights: [...new Set(input.rights ?? RIGHTS)],
    rateLimitPerMinute: input.rateLimitPerMinute ?? 60,
    createdAt: now,
  });
  return { id, key };
}
