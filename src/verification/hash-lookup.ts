import type { Env } from "../env.ts";
import { proofsIndexedUnder } from "../storage/objects/hash-index.ts";

/** Where the public look-up by hash reads (docs/adr/0062): no shard is asked unless a proof there may answer. */
export interface HashLookup {
  sha256: string;
  /** The proofs the R2 hash index names for it: each is read in the shard its id names, and in no other. */
  indexed: string[];
  /** Whether shard 00 is searched as a whole, as before the index, for what was sealed or made before it. */
  beforeTheIndex: boolean;
}

/**
 * The look-up of a SHA-256, from one R2 list of the hash index. Signed files and reports made before the index
 * have no entry, and they all live in shard 00 (the only database then): when the index names no proof, shard
 * 00 is searched by its own query, as it always was, whatever proof the asker names: naming one only adds its
 * originals (docs/adr/0060), it never hides a signed match. A hash the index names was made since, for one
 * proof only (the bytes carry its manifest): no shard is searched as a whole.
 */
export async function hashLookup(env: Env, sha256: string, limit: number): Promise<HashLookup> {
  const indexed = await proofsIndexedUnder(env, sha256, limit);
  return { sha256, indexed, beforeTheIndex: indexed.length === 0 };
}
