import sharp from "sharp";
import type { Thumbnail } from "../../shared/sealer-protocol.ts";

/** The long side and the weight the verification page counts on (docs/adr/0021). */
export const THUMBNAIL_MAX_PX = 480;
export const THUMBNAIL_MAX_BYTES = 100 * 1024;

/** Formats the prebuilt libvips decodes. HEIC is HEVC inside, which it cannot decode (no libde265): no thumbnail. */
const DECODABLE = new Set(["image/jpeg", "image/png", "image/webp"]);

/** Each step down is tried only when a picture of noise-like detail would still weigh over 100 KB. */
const QUALITIES = [70, 50, 30];

/**
 * A JPEG is decoded at ⅛ scale (shrink-on-load), so any size sharp accepts stays small in memory; a PNG or a
 * WebP is decoded whole, and a small file can hold a huge picture (a 177 KB PNG of 56 Mpx): beyond 64 Mpx
 * (256 MB decoded), no thumbnail. And at most two pictures are decoded at once in the process, whatever the
 * number of jobs, since the originals' memory budget counts file bytes, not pixels.
 */
const MAX_WHOLE_DECODE_PIXELS = 64_000_000;
const DECODING_AT_ONCE = 2;
let decoding = 0;
const waitingToDecode: (() => void)[] = [];

/** How many pictures are being decoded now (for the test of the bound). */
export const decodingNow = () => decoding;

async function withDecodingSlot<T>(work: () => Promise<T>): Promise<T> {
  if (decoding < DECODING_AT_ONCE) decoding++;
  else await new Promise<void>((resume) => waitingToDecode.push(resume));
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line, so that a newcomer never makes a third.
    const next = waitingToDecode.shift();
    if (next) next();
    else decoding--;
  }
}

// The sealer reads each file once: libvips' operation cache would only hold memory.
sharp.cache(false);

/**
 * A light WebP of a photo, made from the signed bytes the proof publishes (never from what the phone
 * sent alongside): turned upright by its EXIF orientation, at most 480 px on its long side, stripped of
 * every metadata (a reader of the page sees no location the full file may carry). A test proof's
 * thumbnail carries a TEST band, so it never looks like a live one even taken out of the page.
 * null: the format cannot be decoded here (a video, HEIC), the picture is too large to decode whole, or no
 * quality fits within 100 KB.
 */
export async function makeThumbnail(signed: Uint8Array, sniffedType: string, mode: "test" | "live"): Promise<{ bytes: Uint8Array; meta: Thumbnail } | null> {
  if (!DECODABLE.has(sniffedType)) return null;
  return withDecodingSlot(() => encode(signed, sniffedType, mode));
}

async function encode(signed: Uint8Array, sniffedType: string, mode: "test" | "live"): Promise<{ bytes: Uint8Array; meta: Thumbnail } | null> {
  const limitInputPixels = sniffedType === "image/jpeg" ? undefined : MAX_WHOLE_DECODE_PIXELS;
  const { width: fullWidth = 0, height: fullHeight = 0 } = await sharp(signed).metadata();
  if (limitInputPixels !== undefined && fullWidth * fullHeight > limitInputPixels) return null;
  // JPEG shrink-on-load: libvips decodes at 1/2, 1/4 or 1/8 scale when the target is that much smaller.
  const resized = await sharp(signed, { failOn: "none", limitInputPixels })
    .autoOrient()
    .resize(THUMBNAIL_MAX_PX, THUMBNAIL_MAX_PX, { fit: "inside", withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = resized.info;
  const picture =
    mode === "test"
      ? await sharp(resized.data, { raw: resized.info }).composite([{ input: testBand(width, height), top: 0, left: 0 }]).raw().toBuffer({ resolveWithObject: true })
      : resized;
  for (const quality of QUALITIES) {
    const bytes = await sharp(picture.data, { raw: picture.info }).webp({ quality, effort: 2 }).toBuffer();
    if (bytes.length <= THUMBNAIL_MAX_BYTES) return { bytes: new Uint8Array(bytes), meta: { content_type: "image/webp", width, height, size: bytes.length } };
  }
  return null;
}

/** "TEST" in 5×7 block letters, drawn as rectangles: no font needed in the sealer's image. */
const GLYPHS: Record<string, string[]> = {
  T: ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
  E: ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
  S: ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
};

/** A band across the bottom of the picture, a fifth of its height, saying TEST in white on dark red. */
function testBand(width: number, height: number): Buffer {
  const band = Math.max(12, Math.round(height / 5));
  const cell = Math.max(1, Math.floor((band * 0.7) / 7));
  const letters = "TEST";
  const textWidth = (letters.length * 6 - 1) * cell;
  const left = Math.round((width - textWidth) / 2);
  const top = height - band + Math.round((band - 7 * cell) / 2);
  const rects = [...letters].flatMap((letter, index) =>
    GLYPHS[letter]!.flatMap((row, y) =>
      [...row].flatMap((bit, x) => (bit === "1" ? [`<rect x="${left + (index * 6 + x) * cell}" y="${top + y * cell}" width="${cell}" height="${cell}"/>`] : [])),
    ),
  );
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="0" y="${height - band}" width="${width}" height="${band}" fill="#9b1c1c" fill-opacity="0.9"/><g fill="#fff">${rects.join("")}</g></svg>`,
  );
}
