import type { SealJobFile, Thumbnail } from "../../shared/sealer-protocol.ts";
import { type DecodedPicture, makeThumbnail } from "./thumbnail.ts";
import { put, upload } from "./transfer.ts";

/**
 * Writes the signed copy and, while it uploads, makes its thumbnail from the photo's pixels decoded before
 * signing (`picture`, null for a video or what libvips cannot decode) and writes it too (when the job asked for one): libvips works on its own threads, so the thumbnail costs
 * the job little more than the upload. Both settle before this returns, so nothing of the file is still
 * being written when a failure is handled and its copies are discarded.
 */
export async function storeSignedCopy(
  file: SealJobFile,
  signed: Uint8Array,
  picture: DecodedPicture | null,
  mode: "test" | "live",
  signal: AbortSignal,
): Promise<Thumbnail | null> {
  const [copy, thumbnail] = await Promise.allSettled([upload(file, signed, signal), storeThumbnail(file, picture, mode, signal)]);
  if (copy.status === "rejected") throw copy.reason;
  if (thumbnail.status === "rejected") throw thumbnail.reason;
  return thumbnail.value;
}

async function storeThumbnail(file: SealJobFile, picture: DecodedPicture | null, mode: "test" | "live", signal: AbortSignal): Promise<Thumbnail | null> {
  if (!file.thumbnail || picture === null) return null;
  const made = await makeThumbnail(picture, mode);
  if (made === null) return null;
  signal.throwIfAborted();
  await put(file.thumbnail.destination, made.bytes, signal, `the thumbnail of ${file.id}`);
  return made.meta;
}
