import { bucket, type ObjectStore } from "./bucket.ts";

/**
 * Bounds on reading a sealed proof's small objects whole (forger session 7, G11): an insider with write access to the
 * bucket could put an object of hundreds of MB where one of a few kB is read on every public request, exhausting the
 * Worker's memory (a 5xx for every reader, and the shard's re-hash dying at that proof). Each bound is generous above
 * the largest object sealing writes, so an object above it is never the sealed one.
 */
export const READ_LIMITS = {
  /** manifest.json: a proof holds 1,000 files at most (20 steps of 50 shots), a few hundred bytes each: under 1 MiB. */
  manifest: 8 * 1024 * 1024,
  /** record.json: the same 1,000 files whole, each row with its facts and signals a few kB: a few MiB. */
  sealedRecord: 16 * 1024 * 1024,
  /** The other artifacts (seal, token, chains, evidence record, revocation index and files): a CRL is at most 8 MiB (the sealer's MAX_CRL_BYTES). */
  artifact: 8 * 1024 * 1024,
} as const;

/**
 * The object under `key` read whole when storage says it is at most `limit` bytes (its size from its metadata, before
 * the body); "too large" above, its body never read; null when there is none.
 */
export async function readBoundedBytes(store: ObjectStore, key: string, limit: number): Promise<Uint8Array<ArrayBuffer> | "too large" | null> {
  const object = await bucket(store).get(key);
  if (object === null) return null;
  if (object.size > limit) {
    await object.body.cancel();
    return "too large";
  }
  return new Uint8Array(await object.arrayBuffer());
}
