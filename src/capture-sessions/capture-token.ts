import { randomToken } from "../lib/crypto.ts";
import { type ShardCode, shardOfBody } from "../db/shards.ts";

/** The random part of a capture token: 32 bytes in base64url, 43 characters (a whole token before shards). */
const RANDOM_BYTES = 32;
const RANDOM_LENGTH = 43;

/**
 * A capture link's token, naming the shard its session lives in (docs/adr/0062): `<shard><43 random>`, so that
 * `/c/{token}` opens that database with no directory to read. Only its SHA-256 is stored.
 */
export function newCaptureToken(shard: ShardCode): string {
  return `${shard}${randomToken(RANDOM_BYTES)}`;
}

/** The shard a capture token names; a token of 43 characters was minted before shards, in `00`. */
export function shardOfCaptureToken(token: string): ShardCode {
  return shardOfBody(token, RANDOM_LENGTH);
}
