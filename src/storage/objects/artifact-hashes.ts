import { artifactHashesKey, bucket, type ObjectStore } from "./bucket.ts";

/** The SHA-256 and size of one artifact as the sealing run stored it. */
export interface StoredArtifact {
  sha256: string;
  size: number;
}

/** The artifacts whose stored bytes a run's hashes are kept for, by their names in the package. */
export type ArtifactHashes = Record<"manifest.json" | "proof.tsr" | "chain.pem" | "manifest.p7s", StoredArtifact>;

/**
 * Writes the hashes of the artifacts this run stored, before the batch that seals the proof (docs/adr/0066): the
 * first re-hash already compares with what was sealed, and D1 keeps no row per artifact. A run that loses its race
 * has this object discarded with its other objects.
 */
export async function storeArtifactHashes(store: ObjectStore, proofId: string, run: string, hashes: ArtifactHashes): Promise<void> {
  await bucket(store).put(artifactHashesKey(proofId, run), JSON.stringify(hashes), { httpMetadata: { contentType: "application/json" } });
}

/**
 * The hashes the run that sealed the proof stored; null for a proof sealed before they were written (its
 * `sealed_object_checks` rows hold them) or whose object is gone (the artifacts are then compared with what a
 * row holds, else recorded at their first re-hash, as before).
 */
export async function readArtifactHashes(store: ObjectStore, proof: { id: string; sealingRun: string | null }): Promise<ArtifactHashes | null> {
  if (proof.sealingRun === null) return null;
  const object = await bucket(store).get(artifactHashesKey(proof.id, proof.sealingRun));
  return object === null ? null : ((await object.json()) as ArtifactHashes);
}
