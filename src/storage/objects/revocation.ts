import { REVOCATION_INDEX, RevocationIndexSchema, revocationFiles, type RevocationEntry, type RevocationIndexEntry } from "../../../shared/revocation-data.ts";
import { bucket, deleteObjects, type ObjectStore, packagedArtifactKey } from "./bucket.ts";
import { READ_LIMITS, readBoundedBytes } from "./bounded-read.ts";

/**
 * A sealed proof's revocation data in R2 (docs/adr/0022), beside its token under the run's prefix and
 * with the package's own names (shared/revocation-data.ts): `revocation/index.json`, and for each
 * certificate `revocation/<chain>-<position>.pem` and, when captured, `.crl` (DER). Written once at
 * sealing, never modified; an evidence record covers these bytes as they are.
 */

interface StoredObject {
  key: string;
  body: string | Uint8Array;
  contentType: string;
}

/** Every object of `entries` with its key, body and type (the index first): the bytes manifest.p7s lists (docs/adr/0049). */
function revocationObjects(proofId: string, run: string, entries: RevocationEntry[]): StoredObject[] {
  return revocationFiles(entries).map(({ name, body, contentType }) => ({ key: packagedArtifactKey(proofId, run, name), body, contentType }));
}

export async function storeRevocation(store: ObjectStore, proofId: string, run: string, entries: RevocationEntry[]): Promise<void> {
  await Promise.all(
    revocationObjects(proofId, run, entries).map((object) => bucket(store).put(object.key, object.body, { httpMetadata: { contentType: object.contentType } })),
  );
}

/** What storeRevocation wrote, for a run whose copies are published nowhere. */
export async function deleteRevocation(store: ObjectStore, proofId: string, run: string, entries: RevocationEntry[]): Promise<void> {
  await deleteObjects(
    store,
    revocationObjects(proofId, run, entries).map((object) => object.key),
  );
}

/**
 * The index of a sealed proof's revocation data; null for a proof sealed before it was captured; "unreadable" when
 * the stored object is not an index (forger session 7, G10): sealing never writes one, so storage damaged it, and the
 * verification core's `revocation` check fails on the same bytes. Never a throw: every route presenting the proof reads it.
 */
export async function readRevocationIndex(
  store: ObjectStore,
  proof: { id: string; sealingRun: string | null },
): Promise<RevocationIndexEntry[] | null | "unreadable"> {
  const bytes = await readBoundedBytes(store, packagedArtifactKey(proof.id, proof.sealingRun, REVOCATION_INDEX), READ_LIMITS.artifact);
  if (bytes === null) return null;
  if (bytes === "too large") return "unreadable";
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return "unreadable";
  }
  const parsed = RevocationIndexSchema.safeParse(json);
  return parsed.success ? parsed.data : "unreadable";
}

/** The package names of the revocation files the index lists (beside `revocation/index.json` itself). */
export const revocationFileNames = (index: RevocationIndexEntry[]) =>
  index.flatMap((entry) => (entry.crl === null ? [entry.certificate] : [entry.certificate, entry.crl]));
