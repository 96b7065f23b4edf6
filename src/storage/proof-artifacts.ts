// Moved to src/storage/objects/bucket.ts; this re-export goes once the files being edited elsewhere import from there.
export { fileExtension, packagedArtifactKey, proofArtifactKeys, signedFileKey, thumbnailKey } from "./objects/bucket.ts";
