import type { SealJobFile, Thumbnail } from "../../shared/sealer-protocol.ts";
import { makeThumbnail } from "./thumbnail.ts";
import { put, upload } from "./transfer.ts";

/**
 * Writes the signed copy and, while it uploads, makes its thumbnail from the same bytes in memory and
 * writes it too (when the job asked for one): libvips works on its own threads, so the thumbnail costs
 * the job little more than the upload. Both settle before this returns, so nothing of the file is still
 * being written when a failure is handled and its copies are discarded.
 */
export async function storeSignedCopy(
  file: SealJobFile,
  signed: Uint8Array,
  sniffedType: string,
  mode: "test" | "live",
  signal: AbortSignal,
): Promise<Thumbnail | null> {
  const [copy, thumbnail] = await Promise.allSettled([upload(file, signed, signal), storeThumbnail(file, signed, sniffedType, mode, signal)]);
  if (copy.status === "rejected") throw copy.reason;
  if (thumbnail.status === "rejected") throw thumbnail.reason;
  return thumbnail.value;
}

async function storeThumbnail(
  file: SealJobFile,
  signed: Uint8Array,
  sniffedType: string,
  mode: "test" | "live",
  signal: AbortSignal,
): Promise<Thumbnail | null> {
  if (!file.thumbnail) return null;
  let made: Awaited<ReturnType<typeof makeThumbnail>>;
  try {
    made = await makeThumbnail(signed, sniffedType, mode);
  } catch (error) {
    // Pixels libvips cannot read in a container the sealer accepted: the page shows a tile, the seal stands.
    console.warn(JSON.stringify({ level: "warn", message: `no thumbnail for ${file.id}: ${(error as Error).message}` }));
    return null;
  }
  if (made === null) return null;
  signal.throwIfAborted();
  await put(file.thumbnail.destination, made.bytes, signal, `the thumbnail of ${file.id}`);
  return made.meta;
}
