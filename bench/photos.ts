import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const PHOTOS = 10;
export const PHOTO_BYTES = 4 * 1024 * 1024;

const root = resolve(import.meta.dirname, "..");

/** A real JPEG grown to `size` bytes with APP15 segments (what a camera's metadata-heavy file looks like). */
function photoOfSize(size: number, seed: number): Buffer {
  const base = readFileSync(join(root, "sealer/test/fixtures/photo.jpg"));
  const segments: Buffer[] = [];
  let total = base.length;
  while (total < size) {
    const length = Math.min(65533, size - total - 4);
    if (length < 16) break;
    const segment = Buffer.alloc(length + 4, seed & 0xff);
    segment.writeUInt16BE(0xffef, 0);
    segment.writeUInt16BE(length + 2, 2);
    segments.push(segment);
    total += segment.length;
  }
  return Buffer.concat([base.subarray(0, 2), ...segments, base.subarray(2)]);
}

/** The bench's ten photos of 4 MB, the same bytes in every process that makes them. */
export const benchPhotos = () => Array.from({ length: PHOTOS }, (_, i) => photoOfSize(PHOTO_BYTES, i));
