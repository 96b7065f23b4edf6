import { sha256Hex, toHex } from "../../lib/crypto.ts";
import { type ManifestFile, readManifest } from "../../../shared/verification/sealed-manifest.ts";
import { artifactHashesKey, bucket, type ObjectStore, proofArtifactKeys } from "./bucket.ts";
import { READ_LIMITS } from "./bounded-read.ts";

/** The SHA-256 and size of one artifact as the sealing run stored it. */
export interface StoredArtifact {
  sha256: string;
  size: number;
}

const ARTIFACT_NAMES = ["manifest.json", "proof.tsr", "chain.pem", "manifest.p7s"] as const;

/** The artifacts whose stored bytes a run's hashes are kept for, by their names in the package. */
export type ArtifactHashes = Record<(typeof ARTIFACT_NAMES)[number], StoredArtifact>;

/** A sealed proof as its artifacts' expected hashes are read for. */
interface SealedProofObjects {
  id: string;
  sealingRun: string | null;
  /** What the timestamp's imprint binds, kept in D1: the one expected hash of manifest.json. */
  manifestSha256: string | null;
}

/**
 * Writes the hashes of the artifacts this run stored, before the batch that seals the proof (docs/adr/0066): the
 * first re-hash already compares with what was sealed, and D1 keeps no row per artifact. A run that loses its race
 * has this object discarded with its other objects.
 */
export async function storeArtifactHashes(store: ObjectStore, proofId: string, run: string, hashes: ArtifactHashes): Promise<void> {
  await bucket(store).put(artifactHashesKey(proofId, run), JSON.stringify(hashes), { httpMetadata: { contentType: "application/json" } });
}

const isStoredArtifact = (value: unknown): value is StoredArtifact =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as StoredArtifact).sha256 === "string" &&
  /^[0-9a-f]{64}$/.test((value as StoredArtifact).sha256) &&
  Number.isSafeInteger((value as StoredArtifact).size);

/**
 * The hashes the run that sealed the proof stored; null for a proof sealed before they were written (its
 * `sealed_object_checks` rows hold them) or whose object is gone. Throws when the object is not what sealing wrote:
 * not JSON, an entry missing, or a manifest.json entry other than D1's `manifest_sha256` (the one value it holds
 * that something signed binds, so an object rewritten to vouch for another manifest is told apart).
 */
export async function readArtifactHashes(store: ObjectStore, proof: SealedProofObjects): Promise<ArtifactHashes | null> {
  if (proof.sealingRun === null) return null;
  const object = await bucket(store).get(artifactHashesKey(proof.id, proof.sealingRun));
  if (object === null) return null;
  const hashes = (await object.json()) as Record<string, unknown> | null;
  if (hashes === null || typeof hashes !== "object" || !ARTIFACT_NAMES.every((name) => isStoredArtifact(hashes[name])))
    throw new Error(`proof ${proof.id}: its artifact-hashes.json is not what sealing writes`);
  const read = hashes as ArtifactHashes;
  if (read["manifest.json"].sha256 !== proof.manifestSha256) throw new Error(`proof ${proof.id}: its artifact-hashes.json vouches for another manifest`);
  return read;
}

/** manifest.json as stored: its hash and size (null: missing), and the files it lists when it is the sealed one. */
export interface StoredManifest {
  found: StoredArtifact | null;
  /**
   * Its files in the manifest's own order, when its SHA-256 is D1's `manifest_sha256` (which the timestamp binds)
   * and it reads as a manifest; null otherwise (altered, missing, or no manifest at all).
   */
  files: ManifestFile[] | null;
}

/**
 * Reads manifest.json once for the re-hash (docs/adr/0066): its SHA-256 is the re-hash of the manifest itself, and
 * the sealed one says which signed files the proof has, in which order, with which hashes, whatever an unsigned
 * object beside it (record.json) says.
 */
export async function readStoredManifest(store: ObjectStore, proof: SealedProofObjects): Promise<StoredManifest> {
  const object = await bucket(store).get(proofArtifactKeys(proof.id, proof.sealingRun).manifest);
  if (object === null) return { found: null, files: null };
  if (object.size > READ_LIMITS.manifest) {
    // Not the sealed one, whatever it is: hashed as streamed, so that an object put there cannot exhaust memory.
    const digest = new crypto.DigestStream("SHA-256");
    await object.body.pipeTo(digest);
    return { found: { sha256: toHex(await digest.digest), size: object.size }, files: null };
  }
  const bytes = new Uint8Array(await object.arrayBuffer());
  const found = { sha256: await sha256Hex(bytes), size: bytes.length };
  return { found, files: found.sha256 === proof.manifestSha256 ? (readManifest(bytes)?.files ?? null) : null };
}
