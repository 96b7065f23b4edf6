import type { StoredThumbnail } from "../../db/schema/proofs.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import type { FileRow, ProofRow } from "../rows.ts";
import { THUMBNAIL_MAX_BYTES } from "../../../shared/sealer-protocol.ts";
import { readBoundedBytes } from "./bounded-read.ts";
import { type ObjectStore, thumbnailKey } from "./bucket.ts";

/**
 * A file's thumbnail as its proof may present it (forger session 7, G6 and G14): the one sealing named, at the key its
 * sealing run gives it (`proofs/<id>/runs/<run>/thumbnails/<file>.webp`), null when it has none. A row or record
 * naming any other key (another proof's thumbnail, an original under captures/) is not what sealing wrote:
 * `elsewhere`, never served.
 */
export function sealedThumbnail(proof: Pick<ProofRow, "id" | "sealingRun">, file: Pick<FileRow, "id" | "thumbnail">): StoredThumbnail | "elsewhere" | null {
  if (!file.thumbnail) return null;
  return file.thumbnail.key === thumbnailKey(proof.id, proof.sealingRun, file.id) ? file.thumbnail : "elsewhere";
}

/**
 * The bytes of a thumbnail whose SHA-256 its record keeps (sealer protocol 12), read within the largest the sealer
 * writes: `altered` when storage holds other bytes there (or more than a thumbnail weighs, its body never read), null
 * when it holds none.
 */
export async function readBoundThumbnail(store: ObjectStore, thumbnail: { key: string; sha256: string }): Promise<Uint8Array<ArrayBuffer> | "altered" | null> {
  const read = await readBoundedBytes(store, thumbnail.key, THUMBNAIL_MAX_BYTES);
  if (read === null) return null;
  return read === "too large" || (await sha256Hex(read)) !== thumbnail.sha256.toLowerCase() ? "altered" : read;
}

/** Whether the proof's record binds the thumbnail's bytes: made by a sealer of protocol 12 or later. */
export const boundThumbnail = (thumbnail: StoredThumbnail): thumbnail is StoredThumbnail & { sha256: string } => thumbnail.sha256 !== undefined;
