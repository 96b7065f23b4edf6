import { bucket, hashIndexPrefix, type ObjectStore, sealedBytesPrefix } from "./bucket.ts";

/**
 * The verify-by-hash index (docs/adr/0062): an empty, immutable object `hashes/<sha256>/<proofId>` for each SHA-256
 * of bytes the service made for a proof (its signed files, its sealed reports), so that `POST /v1/public/verify`
 * finds the proofs, and so their shards, by listing one prefix instead of asking every shard.
 */

/**
 * Records that `proofId` holds bytes with these SHA-256s. Written before the batch that records them (sealed, or
 * the report made), so that nothing is recorded unindexed; an entry whose proof was not sealed in the end is
 * harmless: the look-up reads each proof named and answers only sealed ones holding the hash.
 */
export async function indexHashes(store: ObjectStore, proofId: string, sha256s: string[]): Promise<void> {
  const distinct = [...new Set(sha256s.map((sha256) => sha256.toLowerCase()))];
  await Promise.all(distinct.map((sha256) => bucket(store).put(`${hashIndexPrefix(sha256)}${proofId}`, new Uint8Array())));
}

/** Keys one R2 list operation returns at most, for the price of one (a Class A operation): as many as it allows. */
const KEYS_PER_LIST = 1_000;
/** A proof id's shape in a key: `prf_` and its base-36 body (20 characters before shards, 22 since). */
const PROOF_ID = /^prf_[0-9a-z]{20,24}$/;

/**
 * The proof ids indexed under this SHA-256, in key order, from one list of up to 1,000 keys, no D1; a key of any
 * other shape names nothing. Only what the keys say: anyone able to write to the bucket can put one (forger session
 * 7, G7), so each proof's shard and its own files decide what an entry is worth (src/verification/hash-lookup.ts).
 */
export async function proofsIndexedUnder(store: ObjectStore, sha256: string): Promise<string[]> {
  const prefix = hashIndexPrefix(sha256);
  const listed = await bucket(store).list({ prefix, limit: KEYS_PER_LIST });
  return listed.objects.flatMap((object) => {
    const proofId = object.key.slice(prefix.length);
    return PROOF_ID.test(proofId) ? [proofId] : [];
  });
}

/** Whose bytes the sealed-before index answers for: one organization in one mode. */
interface SealedBytesScope {
  organizationId: string;
  mode: "test" | "live";
}

/**
 * Records that `proof`, sealed at `sealedAt`, holds bytes with these SHA-256s (its originals and its signed copies),
 * so that the organization's next proofs find it by hash once its file rows are gone (docs/adr/0065). Written before
 * the batch that seals it; an entry whose proof was not sealed in the end is harmless: the look-up keeps only the
 * proofs D1 says are sealed.
 */
export async function indexSealedBytes(store: ObjectStore, proof: SealedBytesScope & { id: string }, sealedAt: string, sha256s: string[]): Promise<void> {
  const distinct = [...new Set(sha256s.map((sha256) => sha256.toLowerCase()))];
  await Promise.all(
    distinct.map((sha256) => bucket(store).put(`${sealedBytesPrefix(proof.organizationId, proof.mode, sha256)}${sealedAt}/${proof.id}`, new Uint8Array())),
  );
}

/** What an entry's key holds when sealing wrote it; any other key names nothing (and its id is never sent to D1). */
const SEAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An entry of the sealed-before index: the proof it names and the seal time its key says. */
export interface SealedBytesEntry {
  proofId: string;
  sealedAt: string;
}

/**
 * The entries of the organization and mode for bytes with this SHA-256, earliest first, from one list of up to 1,000
 * keys (made-up ids listed first cannot crowd out the genuine entry short of a thousand). Only what the keys say:
 * anyone able to write to the bucket can put or delete one, so D1 and the named proof's own files decide what an entry
 * is worth (src/storage/sealed-before.ts).
 */
export async function proofsSealedWithBytes(store: ObjectStore, scope: SealedBytesScope, sha256: string): Promise<SealedBytesEntry[]> {
  const prefix = sealedBytesPrefix(scope.organizationId, scope.mode, sha256);
  const listed = await bucket(store).list({ prefix, limit: KEYS_PER_LIST });
  return listed.objects.flatMap((object) => {
    const [sealedAt, proofId, ...rest] = object.key.slice(prefix.length).split("/");
    return sealedAt !== undefined && proofId !== undefined && rest.length === 0 && SEAL_TIME.test(sealedAt) && PROOF_ID.test(proofId)
      ? [{ proofId, sealedAt }]
      : [];
  });
}
