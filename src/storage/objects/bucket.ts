/**
 * The R2 bucket (binding `FILES`) and the key of every object in it. Only src/storage/objects/ reaches the
 * bucket, and only through `bucket()` below (`npm run lint` refuses `.FILES` and `R2Bucket` elsewhere,
 * lint/objects-outside-storage.grit): callers elsewhere pass the Worker's env as an `ObjectStore` to the typed
 * functions of src/storage/objects/.
 */

import { toHex } from "../../lib/crypto.ts";

/** What the functions of src/storage/objects/ take: the Worker's env, or anything else holding the binding. */
export type ObjectStore = Pick<WorkerBindings, "FILES">;

export const bucket = (store: ObjectStore): R2Bucket => store.FILES;

/** A phone's upload, as it arrived (the original bytes, before sealing). */
export const captureUploadKey = (sessionId: string, fileId: string) => `captures/${sessionId}/${fileId}`;

/** A theme's logo. */
export const themeLogoKey = (themeId: string) => `themes/${themeId}/logo`;

/**
 * The verify-by-hash index (docs/adr/0062): under this prefix, one empty object named by the id of each proof
 * holding bytes with that SHA-256 which the service made (src/storage/objects/hash-index.ts).
 */
export const hashIndexPrefix = (sha256: string) => `hashes/${sha256.toLowerCase()}/`;

/**
 * The sealed-before index (docs/adr/0065): under this prefix, one empty object `<sealedAt>/<proofId>` for each proof of
 * the organization and mode that sealed bytes with that SHA-256, as received or as signed, earliest first
 * (src/storage/objects/hash-index.ts).
 */
export const sealedBytesPrefix = (organizationId: string, mode: "test" | "live", sha256: string) =>
  `sealed-bytes/${organizationId}/${mode}/${sha256.toLowerCase()}/`;

/** What the health check reads (a HEAD of an object that need not exist). */
const HEALTH_PROBE_KEY = "health/probe";

/** Each sealing run writes under its own prefix; the proof records the run that sealed it (`sealing_run`). */
const runPrefix = (proofId: string, run: string | null) => (run === null ? `proofs/${proofId}` : `proofs/${proofId}/runs/${run}`);

/** An artifact stored under the name it has in the package (`revocation/tsa-1.crl`, …), beside manifest.json. */
export const packagedArtifactKey = (proofId: string, run: string | null, name: string) => `${runPrefix(proofId, run)}/${name}`;

/**
 * Where a sealed proof's artifacts live in R2. Written once by a sealing run, read by the public
 * verification routes and the package; never modified after sealing.
 */
export const proofArtifactKeys = (proofId: string, run: string | null) => {
  const prefix = runPrefix(proofId, run);
  return {
    /** The exact bytes whose SHA-256 is `manifest_sha256`. */
    manifest: `${prefix}/manifest.json`,
    /** manifest.p7s: the proof seal, a detached CMS signature of manifest.json (docs/adr/0027); absent for proofs sealed before it. */
    manifestSeal: `${prefix}/manifest.p7s`,
    /** The whole RFC 3161 TimeStampResp, as `openssl ts -verify -in` expects it. */
    timestampResponse: `${prefix}/proof.tsr`,
    /** The authority's chain for `openssl ts -verify -CAfile`. */
    timestampChain: `${prefix}/chain.pem`,
    /** The root that anchors the C2PA signing certificate (published so readers can trust it). */
    c2paTrustAnchor: `${prefix}/c2pa-trust-anchor.pem`,
  };
};

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/heic": "heic",
  "image/heif": "heif",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "video/webm": "webm",
};

export function fileExtension(contentType: string): string {
  return EXTENSIONS[contentType] ?? "bin";
}

/** The proof seal (manifest.p7s) beside manifest.json, under the sealing run's prefix (issue 24, docs/adr/0027). */
export const MANIFEST_SEAL_NAME = "manifest.p7s";

/**
 * The evidence record's name in the package, and in storage beside the proof's manifest.json (under its sealing
 * run): the only artifact of a sealed proof that changes, rewritten by each renewal.
 */
export const EVIDENCE_RECORD_NAME = "evidence-record.ers";

export const evidenceRecordKey = (proofId: string, run: string | null) => packagedArtifactKey(proofId, run, EVIDENCE_RECORD_NAME);

/**
 * A sealed proof's full record (issue 31 point 2): its files' facts and capture context, written once by the
 * run before the proof says sealed and never changed; D1 keeps only what queries need. Not a package entry.
 */
export const sealedRecordKey = (proofId: string, run: string) => `${runPrefix(proofId, run)}/record.json`;

/**
 * The SHA-256 and size of the artifacts a sealing run stored (manifest.json, proof.tsr, chain.pem, manifest.p7s),
 * written once by the run before the proof says sealed: what the re-hash sweep compares them with (docs/adr/0066).
 * Not a package entry.
 */
export const artifactHashesKey = (proofId: string, run: string) => `${runPrefix(proofId, run)}/artifact-hashes.json`;

/**
 * A sealed photo's thumbnail, made by the sealer from the signed bytes (served publicly, not in the package); a proof
 * sealed before runs (null) would have it at its root, as its artifacts.
 */
export function thumbnailKey(proofId: string, run: string | null, fileId: string): string {
  return `${runPrefix(proofId, run)}/thumbnails/${fileId}.webp`;
}

/** The C2PA-signed copy of a file, as served publicly and put in the package under `files/`. */
export function signedFileKey(proofId: string, run: string, fileId: string, contentType: string): string {
  return `${runPrefix(proofId, run)}/files/${fileId}.${fileExtension(contentType)}`;
}

/**
 * A proof's PDF evidence report (kind `proof`), or a pair's kept with its after (kind `pair`): each report run
 * writes under its own name, and the proof_reports row names the one that was recorded (docs/adr/0044).
 */
export const reportKey = (proofId: string, kind: "proof" | "pair", run: string) => `proofs/${proofId}/reports/${kind}-${run}.pdf`;

/** An object as read: its bytes as a stream (read once), its size, the type it was stored with, when it was written. */
interface OpenedObject {
  body: ReadableStream<Uint8Array>;
  size: number;
  contentType: string | null;
  uploaded: Date;
}

/** The object under `key`, opened for reading; null when there is none. */
export async function openObject(store: ObjectStore, key: string): Promise<OpenedObject | null> {
  const object = await bucket(store).get(key);
  return object && { body: object.body, size: object.size, contentType: object.httpMetadata?.contentType ?? null, uploaded: object.uploaded };
}

/** The whole object under `key` (small artifacts only: it is held in memory); null when there is none. */
export async function readObjectBytes(store: ObjectStore, key: string): Promise<Uint8Array | null> {
  const object = await bucket(store).get(key);
  return object && new Uint8Array(await object.arrayBuffer());
}

/** What storage says of the object under `key` without reading it (one HEAD); null when there is none. */
export async function objectHead(store: ObjectStore, key: string): Promise<{ size: number; uploaded: Date; customMetadata: Record<string, string> } | null> {
  const head = await bucket(store).head(key);
  return head && { size: head.size, uploaded: head.uploaded, customMetadata: head.customMetadata ?? {} };
}

/** The keys among `keys` under which storage holds no object, each asked with one HEAD (nothing is read). */
export async function absentObjects(store: ObjectStore, keys: string[]): Promise<Set<string>> {
  const heads = await Promise.all(keys.map(async (key) => ({ key, head: await bucket(store).head(key) })));
  return new Set(heads.filter(({ head }) => head === null).map(({ key }) => key));
}

/** The SHA-256 (hex), size and write time of the object under `key`, streamed so that memory stays flat; null when there is none. */
export async function hashObject(store: ObjectStore, key: string): Promise<{ sha256: string; size: number; uploaded: Date } | null> {
  const object = await bucket(store).get(key);
  if (object === null) return null;
  const digest = new crypto.DigestStream("SHA-256");
  await object.body.pipeTo(digest);
  return { sha256: toHex(await digest.digest), size: object.size, uploaded: object.uploaded };
}

/** R2's delete() takes at most 1,000 keys per call. */
const KEYS_PER_DELETE = 1000;

/** Deletes the objects under `keys` (a missing one is no error), in as many calls as R2 needs. */
export async function deleteObjects(store: ObjectStore, keys: string[]): Promise<void> {
  for (let start = 0; start < keys.length; start += KEYS_PER_DELETE) await bucket(store).delete(keys.slice(start, start + KEYS_PER_DELETE));
}

/** The health check's probe: throws when the bucket does not answer. */
export async function probeBucket(store: ObjectStore): Promise<void> {
  await bucket(store).head(HEALTH_PROBE_KEY);
}
