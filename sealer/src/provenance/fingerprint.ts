import sharp, { type Region } from "sharp";
import type { PerceptualFingerprint } from "../../../shared/sealer-protocol.ts";
import type { DecodedPicture } from "../thumbnail.ts";

/**
 * Perceptual fingerprints of a photo, from its decoded pixels (docs/adr/0041): a 64-bit DCT hash (pHash) and a
 * 64-bit difference hash (dHash), each 16 hex digits, bit 63 first. Two pictures of the same shot, re-encoded,
 * resized, slightly cropped or converted to another format, stay within a few bits of each other; the Worker
 * compares them with the organization's earlier photos. Also the luminance's spread, for `blank_frame`.
 */
export interface PixelFacts {
  fingerprint: PerceptualFingerprint;
  /**
   * The fingerprints of five crops of the photo, 95 % of its width and height kept against its top-left, top-right,
   * bottom-left and bottom-right corner and in its centre (docs/adr/0052): a copy cropped by 5 % from a corner,
   * whose fingerprint moves up to 26 bits from the whole picture's, or around it, stays within a few bits of one.
   */
  crops: PerceptualFingerprint[];
  /** Standard deviation of the luminance (0-255) over a 64×64 reduction: near 0 for a uniform frame. */
  luminance_spread: number;
}

const DCT_SIZE = 32;
const LOW_FREQUENCIES = 8;
/** What a crop keeps of each dimension. */
const CORNER_CROP_KEPT = 0.95;
/** Where each crop is kept, as [x, y]: 0 against the left or top edge, 1 against the right or bottom one, 0.5 centred. */
const CROPS = [
  [0, 0],
  [1, 0],
  [0, 1],
  [1, 1],
  [0.5, 0.5],
] as const;

/**
 * From the photo decoded once for its thumbnail too (sealer/src/thumbnail.ts: upright, sRGB, at most 480 px):
 * grey, reduced to 256 px, from which the small reductions (of the whole picture and of its crops) are made.
 * The hashes ignore the aspect ratio on purpose: a crop of a few per cent changes it little, and a resize not at all.
 */
export async function pixelFacts(picture: DecodedPicture): Promise<PixelFacts> {
  const grey = await sharp(picture.data, { raw: picture.info })
    .resize(256, 256, { fit: "inside", withoutEnlargement: true })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = grey.info;
  const reduce = async (toWidth: number, toHeight: number, region?: Region) =>
    sharp(grey.data, { raw: grey.info })
      .extract(region ?? { left: 0, top: 0, width, height })
      .resize(toWidth, toHeight, { fit: "fill", kernel: "cubic" })
      .extractChannel(0)
      .raw()
      .toBuffer();
  const fingerprintOf = async (region?: Region): Promise<PerceptualFingerprint> => {
    const [dct, difference] = await Promise.all([reduce(DCT_SIZE, DCT_SIZE, region), reduce(9, 8, region)]);
    return { phash: dctHash(dct), dhash: differenceHash(difference) };
  };
  const kept = { width: Math.round(width * CORNER_CROP_KEPT), height: Math.round(height * CORNER_CROP_KEPT) };
  const regions = CROPS.map(([x, y]) => ({ left: Math.round(x * (width - kept.width)), top: Math.round(y * (height - kept.height)), ...kept }));
  const [fingerprint, spread, crops] = await Promise.all([fingerprintOf(), reduce(64, 64), Promise.all(regions.map((region) => fingerprintOf(region)))]);
  return { fingerprint, crops: crops, luminance_spread: standardDeviation(spread) };
}

/**
 * pHash: the 2-D DCT-II of the 32×32 grey picture; its lowest 8×8 frequencies but the DC row and column
 * (rows and columns 1 to 8: the DC term only says how bright the picture is), each a bit set when above their median.
 */
export function dctHash(pixels: Uint8Array): string {
  const n = DCT_SIZE;
  const cosines = Array.from({ length: LOW_FREQUENCIES + 1 }, (_, u) => Array.from({ length: n }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * n))));
  // Rows first: each row's frequencies 0-8, then the columns of those.
  const rows = Array.from({ length: n }, (_, y) => cosines.map((cos) => cos.reduce((sum, c, x) => sum + c * pixels[y * n + x]!, 0)));
  const coefficients: number[] = [];
  for (let v = 1; v <= LOW_FREQUENCIES; v++) {
    for (let u = 1; u <= LOW_FREQUENCIES; u++) coefficients.push(cosines[v]!.reduce((sum, c, y) => sum + c * rows[y]![u]!, 0));
  }
  const sorted = [...coefficients].sort((a, b) => a - b);
  const median = (sorted[31]! + sorted[32]!) / 2;
  return toHex(coefficients.map((value) => value > median));
}

/** dHash: in a 9×8 grey picture, whether each pixel is brighter than its right neighbour (8 per row). */
export function differenceHash(pixels: Uint8Array): string {
  const bits: boolean[] = [];
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) bits.push(pixels[y * 9 + x]! > pixels[y * 9 + x + 1]!);
  return toHex(bits);
}

function toHex(bits: boolean[]): string {
  let hex = "";
  for (let nibble = 0; nibble < 16; nibble++) {
    const value = bits.slice(nibble * 4, nibble * 4 + 4).reduce((sum, bit) => (sum << 1) | (bit ? 1 : 0), 0);
    hex += value.toString(16);
  }
  return hex;
}

function standardDeviation(values: Uint8Array): number {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
}
