import { signedFileKey, thumbnailKey } from "../storage/objects/bucket.ts";
import type { SealedFile } from "../storage/objects/sealed-records.ts";
import type { FileRow } from "../storage/rows.ts";
import type { SealedResult } from "../../shared/sealer-protocol.ts";
import type { StoredSignal } from "../../shared/integrity-signals.ts";

/**
 * The proof's files as its record holds them once sealed (docs/adr/0065), in capture order: each as it was captured,
 * with what this run's sealer made of it (its signed copy's key, hash, size and CRC-32, its decoded facts, earlier
 * Content Credentials and thumbnail) and its signals. A file the sealer did not answer for is left out.
 */
export function sealedFiles(proofId: string, run: string, files: FileRow[], result: SealedResult, signals: Map<string, StoredSignal[]>): SealedFile[] {
  const sealed = new Map(result.files.map((file) => [file.id, file]));
  return files.flatMap(({ multipartUploadId: _upload, uploadedParts: _parts, ...file }) => {
    const made = sealed.get(file.id);
    if (made === undefined) return [];
    return [
      {
        ...file,
        signedKey: signedFileKey(proofId, run, file.id, file.contentType),
        signedSha256: made.signed_sha256,
        signedSize: made.signed_size,
        signedCrc32: made.signed_crc32,
        sniffedType: made.sniffed_type,
        priorC2pa: made.prior_c2pa,
        decoded: made.decoded,
        signals: signals.get(file.id) ?? [],
        priorCredentials: made.prior_credentials,
        thumbnail: made.thumbnail && { ...made.thumbnail, key: thumbnailKey(proofId, run, file.id) },
      },
    ];
  });
}
