import { shardOfBody, type ShardCode } from "../db/shards.ts";
import { randomToken } from "../lib/crypto.ts";
import type { Mode } from "./mode.ts";

/** 24 random bytes: 32 base64url characters after the mode and the shard (`sk_live_01…`). */
const KEY_RANDOM_BYTES = 24;
const KEY_RANDOM_LENGTH = 32;

/**
 * A new API key of an organization living in `shard`: `sk_<mode>_<shard><32 random>`, so that the request
 * finds the database holding the key without asking another (docs/adr/0062). A key minted before shards has
 * the 32 random characters alone and lives in `00`.
 */
export function newApiKeyValue(mode: Mode, shard: ShardCode): string {
  return `sk_${mode}_${shard}${randomToken(KEY_RANDOM_BYTES)}`;
}

/** The shard a well-formed key names (`00` for a key minted before shards); whether it exists is the caller's check. */
export function shardOfKey(key: string): ShardCode {
  return shardOfBody(key.slice("sk_test_".length), KEY_RANDOM_LENGTH);
}

/**
 * What is stored to tell a new key from the others without the key: its mode, its shard and its first 4
 * random characters (`sk_live_01AbCd`, 14 characters), as the first 12 showed 4 random ones before shards.
 */
export function keyPrefixOf(key: string): string {
  return key.slice(0, "sk_test_".length + 2 + 4);
}
