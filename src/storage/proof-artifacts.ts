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

/** A sealed photo's thumbnail, made by the sealer from the signed bytes (served publicly, not in the package). */
export function thumbnailKey(proofId: string, run: string, fileId: string): string {
  return `${runPrefix(proofId, run)}/thumbnails/${fileId}.webp`;
}

/** The C2PA-signed copy of a file, as served publicly and put in the package under `files/`. */
export function signedFileKey(proofId: string, run: string, fileId: string, contentType: string): string {
  return `${runPrefix(proofId, run)}/files/${fileId}.${fileExtension(contentType)}`;
}
