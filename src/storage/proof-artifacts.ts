/**
 * Where a sealed proof's artifacts live in R2. Written once by the sealing consumer, read by the public
 * verification routes and the package; never modified after sealing.
 */
export const proofArtifactKeys = (proofId: string) => ({
  /** The exact bytes whose SHA-256 is `manifest_sha256`. */
  manifest: `proofs/${proofId}/manifest.json`,
  /** The whole RFC 3161 TimeStampResp, as `openssl ts -verify -in` expects it. */
  timestampResponse: `proofs/${proofId}/proof.tsr`,
  /** The authority's chain for `openssl ts -verify -CAfile`. */
  timestampChain: `proofs/${proofId}/chain.pem`,
  /** The root that anchors the C2PA signing certificate (published so readers can trust it). */
  c2paTrustAnchor: `proofs/${proofId}/c2pa-trust-anchor.pem`,
});

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

/** The C2PA-signed copy of a file, as served publicly and put in the package under `files/`. */
export function signedFileKey(proofId: string, fileId: string, contentType: string): string {
  return `proofs/${proofId}/files/${fileId}.${fileExtension(contentType)}`;
}
