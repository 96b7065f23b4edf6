import sharp from "sharp";
import type { PerceptualFingerprint } from "../../../shared/sealer-protocol.ts";
import type { DecodedPicture } from "../thumbnail.ts";

/**
 * Perceptual fingerprints of a photo, from its decoded pixels (docs/adr/0052, 0058): a 64-bit DCT hash (pHash)
 * and a 64-bit difference hash (dHash), each 16 hex digits, bit 63 first. Two pictures of the same shot,
 * re-encoded, resized, slightly cropped or converted to another format, stay within a few bits of each other;
 * the Worker compares them with the organization's earlier photos. Also the luminance's spread, for `blank_frame`.
 */
export interface PixelFacts {
  fingerprint: PerceptualFingerprint;
  /**
   * The fingerprints of five crops of the photo, 95 % of its width and height kept against its top-left, top-right,
   * bottom-left and bottom-right corner and in its centre (docs/adr/0052): a copy cropped by 5 % from a corner,
   * whose fingerprint moves up to 26 bits from the whole picture's, or around it, stays within a few bits of one.
   */
  crops: PerceptualFingerprint[];
  /**
   * The fingerprints of four crops of the photo that lose 5 % off its left, right, top and bottom edge (95 % of one
   * dimension kept, all of the other): not stored, but looked up beside the whole picture, so that a copy cropped off
   * one edge, which lies between two stored corner crops, is found through the query crop it equals (docs/adr/0052).
   */
  queryCrops: PerceptualFingerprint[];
  /** Standard deviation of the luminance (0-255) over a 64×64 reduction: near 0 for a uniform frame. */
  luminance_spread: number;
}

/** A grey picture, one byte a pixel, row after row. */
export interface GreyPicture {
  pixels: Uint8Array;
  width: number;
  height: number;
}

/** A rectangle of a picture, in whole pixels. */
export interface PictureRegion {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The long side of the grey picture every print is reduced from. */
export const GREY_SIDE = 256;
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
 * The query crops, 5 % off the left, right, top and bottom edge, as [x, y, share of the width kept, share of the
 * height kept]; x and y place the crop as in `CROPS`.
 */
const QUERY_CROPS = [
  [1, 0, CORNER_CROP_KEPT, 1],
  [0, 0, CORNER_CROP_KEPT, 1],
  [0, 1, 1, CORNER_CROP_KEPT],
  [0, 0, 1, CORNER_CROP_KEPT],
] as const;

/**
 * From the photo decoded once for its thumbnail too (sealer/src/thumbnail.ts: upright, sRGB, at most 480 px):
 * one sharp pipeline to grey at 256 px, then every reduction (of the whole picture and of its crops) in code,
 * by averaging the pixels each output pixel covers (docs/adr/0058: thirteen small pipelines a photo cost more
 * than the sums). The hashes ignore the aspect ratio on purpose: a crop of a few per cent changes it little,
 * and a resize not at all.
 */
export async function pixelFacts(picture: DecodedPicture): Promise<PixelFacts> {
  const image = await greyPicture(picture);
  const crops = cropRegions(image).map((region) => fingerprintOfGrey(image, region));
  const queryCrops = queryCropRegions(image).map((region) => fingerprintOfGrey(image, region));
  return { fingerprint: fingerprintOfGrey(image), crops, queryCrops, luminance_spread: standardDeviation(reduceGrey(image, 64, 64)) };
}

/** The decoded photo made grey, at most GREY_SIDE px on its long side: the picture every print is reduced from. */
export async function greyPicture(picture: DecodedPicture): Promise<GreyPicture> {
  const grey = await sharp(picture.data, { raw: picture.info })
    .resize(GREY_SIDE, GREY_SIDE, { fit: "inside", withoutEnlargement: true })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { pixels: grey.data, width: grey.info.width, height: grey.info.height };
}

/** The regions of a grey picture the five crops' prints are computed from, in the order of `CROPS`. */
export function cropRegions(image: GreyPicture): PictureRegion[] {
  const kept = { width: Math.round(image.width * CORNER_CROP_KEPT), height: Math.round(image.height * CORNER_CROP_KEPT) };
  return CROPS.map(([x, y]) => ({ left: Math.round(x * (image.width - kept.width)), top: Math.round(y * (image.height - kept.height)), ...kept }));
}

/** The regions of a grey picture the four query crops' prints are computed from, in the order of `QUERY_CROPS`. */
export function queryCropRegions(image: GreyPicture): PictureRegion[] {
  return QUERY_CROPS.map(([x, y, width, height]) => {
    const kept = { width: Math.round(image.width * width), height: Math.round(image.height * height) };
    return { left: Math.round(x * (image.width - kept.width)), top: Math.round(y * (image.height - kept.height)), ...kept };
  });
}

/** The pHash and dHash of a grey picture, or of a region of it (the whole picture when none is given). */
export function fingerprintOfGrey(image: GreyPicture, region?: PictureRegion): PerceptualFingerprint {
  return { phash: dctHash(reduceGrey(image, DCT_SIZE, DCT_SIZE, region)), dhash: differenceHash(reduceGrey(image, 9, 8, region)) };
}

/**
 * A region of a grey picture reduced to `toWidth`×`toHeight` (aspect ratio not kept) as libvips' resize reduced
 * it when each print was a sharp pipeline of its own: a box filter to twice the size, then halved with a cubic
 * (Catmull-Rom) kernel; so the prints stay within a few bits of those stored before (docs/adr/0058).
 */
export function reduceGrey(image: GreyPicture, toWidth: number, toHeight: number, region?: PictureRegion): Uint8Array {
  return halveCubic(boxReduce(image, 2 * toWidth, 2 * toHeight, region), toWidth, toHeight);
}

/** The Catmull-Rom weights of the 8 pixels around each output pixel when halving, from the leftmost, summing to 1. */
const HALVING_WEIGHTS = (() => {
  const cubic = (x: number) => (x < 1 ? 1.5 * x ** 3 - 2.5 * x ** 2 + 1 : x < 2 ? -0.5 * x ** 3 + 2.5 * x ** 2 - 4 * x + 2 : 0);
  const weights = Array.from({ length: 8 }, (_, k) => cubic(Math.abs(k - 3.5) / 2));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
})();

/** A grey picture of twice `toWidth`×`toHeight` halved, its edge pixels repeated beyond its edges. */
function halveCubic(pixels: Uint8Array, toWidth: number, toHeight: number): Uint8Array {
  const width = 2 * toWidth;
  const across = new Float64Array(2 * toHeight * toWidth);
  for (let y = 0; y < 2 * toHeight; y++) {
    for (let x = 0; x < toWidth; x++) {
      let sum = 0;
      for (let k = 0; k < 8; k++) sum += HALVING_WEIGHTS[k]! * pixels[y * width + Math.min(width - 1, Math.max(0, 2 * x - 3 + k))]!;
      across[y * toWidth + x] = sum;
    }
  }
  const halved = new Uint8Array(toWidth * toHeight);
  for (let y = 0; y < toHeight; y++) {
    for (let x = 0; x < toWidth; x++) {
      let sum = 0;
      for (let k = 0; k < 8; k++) sum += HALVING_WEIGHTS[k]! * across[Math.min(2 * toHeight - 1, Math.max(0, 2 * y - 3 + k)) * toWidth + x]!;
      halved[y * toWidth + x] = Math.min(255, Math.max(0, Math.round(sum)));
    }
  }
  return halved;
}

/**
 * A region reduced by a box filter: each output pixel the average of the source pixels it covers, counting the
 * fraction of those it covers in part, rounded to a byte (as libvips' shrink). A smaller region is stretched.
 */
function boxReduce(image: GreyPicture, toWidth: number, toHeight: number, region?: PictureRegion): Uint8Array {
  const { left, top, width, height } = region ?? { left: 0, top: 0, width: image.width, height: image.height };
  const columns = boxWeights(left, width, toWidth);
  const rows = boxWeights(top, height, toHeight);
  // Each source row of the region reduced across first, then the columns of that.
  const across = new Float64Array(height * toWidth);
  for (let y = 0; y < height; y++) {
    const rowStart = (top + y) * image.width;
    for (let x = 0; x < toWidth; x++) {
      const [first, count, at] = [rowStart + columns.firsts[x]!, columns.counts[x]!, x * columns.taps];
      let sum = 0;
      for (let k = 0; k < count; k++) sum += columns.weights[at + k]! * image.pixels[first + k]!;
      across[y * toWidth + x] = sum;
    }
  }
  const reduced = new Uint8Array(toWidth * toHeight);
  for (let y = 0; y < toHeight; y++) {
    const [first, count, at] = [rows.firsts[y]! - top, rows.counts[y]!, y * rows.taps];
    for (let x = 0; x < toWidth; x++) {
      let sum = 0;
      for (let k = 0; k < count; k++) sum += rows.weights[at + k]! * across[(first + k) * toWidth + x]!;
      reduced[y * toWidth + x] = Math.round(sum);
    }
  }
  return reduced;
}

/**
 * For each of `size` output pixels over `length` source pixels from `start`: the first source pixel it covers,
 * how many it covers, and the share of the output each weighs (summing to 1), `taps` apart for each output pixel.
 */
function boxWeights(start: number, length: number, size: number): { firsts: Int32Array; counts: Int32Array; weights: Float64Array; taps: number } {
  const step = length / size;
  const taps = Math.ceil(step) + 1;
  const firsts = new Int32Array(size);
  const counts = new Int32Array(size);
  const weights = new Float64Array(size * taps);
  for (let index = 0; index < size; index++) {
    const from = index * step;
    const to = Math.min(length, from + step);
    const first = Math.floor(from);
    firsts[index] = start + first;
    counts[index] = Math.max(1, Math.ceil(to) - first);
    for (let k = 0; k < counts[index]!; k++) weights[index * taps + k] = (Math.min(to, first + k + 1) - Math.max(from, first + k)) / step;
  }
  return { firsts, counts, weights, taps };
}

/** cos((2x + 1)uπ / 2N) for the frequencies 0-8 and the 32 positions, computed once. */
const COSINES = Array.from({ length: LOW_FREQUENCIES + 1 }, (_, u) =>
  Float64Array.from({ length: DCT_SIZE }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * DCT_SIZE))),
);

/**
 * pHash: the 2-D DCT-II of the 32×32 grey picture; its lowest 8×8 frequencies but the DC row and column
 * (rows and columns 1 to 8: the DC term only says how bright the picture is), each a bit set when above their median.
 */
export function dctHash(pixels: Uint8Array): string {
  const n = DCT_SIZE;
  const frequencies = LOW_FREQUENCIES + 1;
  // Rows first: each row's frequencies 0-8, then the columns of those.
  const rows = new Float64Array(n * frequencies);
  for (let y = 0; y < n; y++) {
    for (let u = 0; u < frequencies; u++) {
      let sum = 0;
      for (let x = 0; x < n; x++) sum += COSINES[u]![x]! * pixels[y * n + x]!;
      rows[y * frequencies + u] = sum;
    }
  }
  const coefficients: number[] = [];
  for (let v = 1; v <= LOW_FREQUENCIES; v++) {
    for (let u = 1; u <= LOW_FREQUENCIES; u++) {
      let sum = 0;
      for (let y = 0; y < n; y++) sum += COSINES[v]![y]! * rows[y * frequencies + u]!;
      coefficients.push(sum);
    }
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
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / values.length;
  let squares = 0;
  for (const value of values) squares += (value - mean) ** 2;
  return Math.sqrt(squares / values.length);
}
