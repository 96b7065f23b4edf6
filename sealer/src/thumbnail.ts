import { createHash } from "node:crypto";
import sharp, { type OutputInfo } from "sharp";
import { THUMBNAIL_MAX_BYTES, type Thumbnail } from "../../shared/sealer-protocol.ts";

/** The long side and the weight (shared with the Worker, which reads no more) the verification page counts on (docs/adr/0021). */
export const THUMBNAIL_MAX_PX = 480;
export { THUMBNAIL_MAX_BYTES };

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

/** Runs one decode within the process-wide bound (also used by the perceptual fingerprint). */
export async function withDecodingSlot<T>(work: () => Promise<T>): Promise<T> {
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
// One libvips thread per picture: the signing threads already take the cores, and on the loaded 2-core
// machine a 4000×3000 JPEG took 56 ms of wall time so instead of 96 (the same CPU).
sharp.concurrency(1);

/** A photo decoded once (docs/benchmarks.md): upright, sRGB, at most 480 px on its long side, raw pixels. */
export interface DecodedPicture {
  data: Buffer;
  info: OutputInfo;
}

/**
 * A photo decoded once for both its thumbnail and its perceptual fingerprints (sealer/src/provenance/fingerprint.ts):
 * turned upright by its EXIF orientation, at most 480 px on its long side, sRGB, raw. The pixels the phone sent
 * are those of the signed copy (C2PA adds a block, never touches the image data), so the thumbnail made from
 * them is the one the signed bytes give, and carries none of their metadata.
 * null: the format cannot be decoded here (a video, HEIC) or the picture is too large to decode whole; a
 * picture libvips cannot read throws.
 */
export async function decodePicture(bytes: Uint8Array, sniffedType: string): Promise<DecodedPicture | null> {
  if (!DECODABLE.has(sniffedType)) return null;
  return withDecodingSlot(async () => {
    // A JPEG needs no look at its size first: it decodes at ⅛ scale whatever it is.
    const limitInputPixels = sniffedType === "image/jpeg" ? undefined : MAX_WHOLE_DECODE_PIXELS;
    if (limitInputPixels !== undefined) {
      const { width = 0, height = 0 } = await sharp(bytes).metadata();
      if (width * height > limitInputPixels) return null;
    }
    // JPEG shrink-on-load: libvips decodes at 1/2, 1/4 or 1/8 scale when the target is that much smaller
    // (measured: a 4000×3000 JPEG in 49 ms resized to 480 px, 122 ms kept whole). sRGB, so that a grey
    // picture has the three channels the band is drawn in.
    return sharp(bytes, { failOn: "none", limitInputPixels })
      .autoOrient()
      .resize(THUMBNAIL_MAX_PX, THUMBNAIL_MAX_PX, { fit: "inside", withoutEnlargement: true })
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
  });
}

/**
 * A light WebP of a decoded photo, stripped of every metadata (a reader of the page sees no location the full
 * file may carry). A test proof's thumbnail carries a TEST band, so it never looks like a live one even taken
 * out of the page. null: no quality fits within 100 KB. Its SHA-256 goes into the proof's record: other bytes put in
 * its place are never shown as the proof's picture (forger session 7, G6).
 */
export async function makeThumbnail(picture: DecodedPicture, mode: "test" | "live"): Promise<{ bytes: Uint8Array; meta: Thumbnail } | null> {
  const { width, height } = picture.info;
  // Drawn into a copy of the pixels rather than composited by libvips: one pipeline and no SVG rendering less.
  const pixels = Buffer.from(picture.data);
  if (mode === "test") drawTestBand(pixels, picture.info);
  for (const quality of QUALITIES) {
    const bytes = await sharp(pixels, { raw: picture.info }).webp({ quality, effort: 0 }).toBuffer();
    if (bytes.length <= THUMBNAIL_MAX_BYTES) {
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      return { bytes: new Uint8Array(bytes), meta: { content_type: "image/webp", width, height, size: bytes.length, sha256 } };
    }
  }
  return null;
}

/** "TEST" in 5×7 block letters, drawn as rectangles: no font needed in the sealer's image. */
const GLYPHS: Record<string, string[]> = {
  T: ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
  E: ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
  S: ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
};

const BAND_COLOUR = [0x9b, 0x1c, 0x1c];
const BAND_OPACITY = 0.9;

/** The band "over" a pixel of opacity `alpha` (0-1): each channel's new value, and the opacity it ends with. */
function over(alpha: number): [(channel: number, value: number) => number, number] {
  const covered = BAND_OPACITY + alpha * (1 - BAND_OPACITY);
  return [(channel, value) => Math.round((BAND_COLOUR[channel]! * BAND_OPACITY + value * alpha * (1 - BAND_OPACITY)) / covered), covered];
}

/**
 * `over` for an opaque pixel, worked out once for every channel value: nearly every pixel a band covers is
 * opaque, and computing each one on the event loop cost 0.7 ms a thumbnail (the signing threads wait on it).
 */
const OVER_OPAQUE = BAND_COLOUR.map((_, channel) => Uint8Array.from({ length: 256 }, (_, value) => over(1)[0](channel, value)));

/**
 * A band across the bottom of the picture, a fifth of its height, saying TEST in white on dark red (90 %
 * opaque, as the picture shows through it a little), drawn into raw sRGB pixels (3 channels, or 4 with
 * alpha: the band makes the pixels it covers nearly opaque, as "over" composition would).
 */
function drawTestBand(pixels: Buffer, { width, height, channels }: { width: number; height: number; channels: number }): void {
  const band = Math.max(12, Math.round(height / 5));
  const cell = Math.max(1, Math.floor((band * 0.7) / 7));
  const letters = "TEST";
  const textWidth = (letters.length * 6 - 1) * cell;
  const left = Math.round((width - textWidth) / 2);
  const top = height - band + Math.round((band - 7 * cell) / 2);
  const bandTop = Math.max(0, height - band);
  for (let at = bandTop * width * channels; at < height * width * channels; at += channels) {
    const alpha = channels === 4 ? pixels[at + 3]! : 255;
    if (alpha === 255) {
      for (let c = 0; c < 3; c++) pixels[at + c] = OVER_OPAQUE[c]![pixels[at + c]!]!;
      continue;
    }
    const [colour, covered] = over(alpha / 255);
    for (let c = 0; c < 3; c++) pixels[at + c] = colour(c, pixels[at + c]!);
    pixels[at + 3] = Math.round(covered * 255);
  }
  for (const [index, letter] of [...letters].entries()) {
    for (const [gy, row] of GLYPHS[letter]!.entries()) {
      for (const [gx, bit] of [...row].entries()) if (bit === "1") fill(pixels, width, height, channels, left + (index * 6 + gx) * cell, top + gy * cell, cell);
    }
  }
}

/** An opaque white square of `size` px at (x, y), clipped to the picture. */
function fill(pixels: Buffer, width: number, height: number, channels: number, x: number, y: number, size: number): void {
  for (let row = Math.max(0, y); row < Math.min(height, y + size); row++) {
    for (let column = Math.max(0, x); column < Math.min(width, x + size); column++) {
      const at = (row * width + column) * channels;
      pixels.fill(255, at, at + channels);
    }
  }
}
