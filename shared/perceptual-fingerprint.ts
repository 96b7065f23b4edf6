/**
 * Comparing perceptual fingerprints (docs/adr/0052). The sealer computes a 64-bit DCT hash (pHash) and a
 * 64-bit difference hash (dHash) of each photo, 16 hex digits each; the Worker indexes the pHash in four
 * 16-bit bands and compares candidates here. Two photos are "similar" when both distances are within their
 * thresholds: pHash alone matches some unrelated pictures of the same layout, dHash alone some crops.
 */

/**
 * Measured in docs/adr/0052: re-encodings, half-size copies and PNG copies stay at or below these from the whole
 * picture, copies cropped by 5 % (around or from a corner) from one of its five crops.
 */
export const PHASH_MAX_DISTANCE = 10;
export const DHASH_MAX_DISTANCE = 12;
/**
 * The stricter thresholds of a new photo's four query crops (5 % off one edge, looked up beside its whole picture):
 * measured in docs/adr/0052 on 322 real photographs, each of their 1,288 copies cropped 5 % off one edge has a query
 * crop within pHash 2 and dHash 5 of one of the original's stored prints, and no query crop of one of the 322 comes
 * within these of another's prints (at the usual 10 and 12, one pair of product photographs on white would).
 */
export const QUERY_CROP_PHASH_MAX_DISTANCE = 6;
export const QUERY_CROP_DHASH_MAX_DISTANCE = 8;

const hexOf64Bits = /^[0-9a-f]{16}$/;
export const isFingerprintHex = (value: string) => hexOf64Bits.test(value);

/** The number of differing bits of two 64-bit hashes in hex. */
export function hammingDistance(a: string, b: string): number {
  let distance = 0;
  for (let at = 0; at < 16; at += 8) {
    let differing = (Number.parseInt(a.slice(at, at + 8), 16) ^ Number.parseInt(b.slice(at, at + 8), 16)) >>> 0;
    while (differing !== 0) {
      differing &= differing - 1;
      distance++;
    }
  }
  return distance;
}

/**
 * The four 16-bit bands of a pHash, as integers, most significant first. Two hashes within 10 bits differ in at
 * most 10 bands' worth of bits, so at least one of four bands is equal whenever the distance is ≤ 3; beyond
 * that, a match is found when any band is untouched (pigeonhole over the measured distances: see the ADR).
 */
export function phashBands(phash: string): [number, number, number, number] {
  return [0, 4, 8, 12].map((at) => Number.parseInt(phash.slice(at, at + 4), 16)) as [number, number, number, number];
}

export interface FingerprintPair {
  phash: string;
  dhash: string;
}

/** The largest distances at which two prints are similar. */
export interface DistanceLimits {
  phash: number;
  dhash: number;
}

export const QUERY_CROP_LIMITS: DistanceLimits = { phash: QUERY_CROP_PHASH_MAX_DISTANCE, dhash: QUERY_CROP_DHASH_MAX_DISTANCE };

/** Both distances, and whether they are within the thresholds (a photo's, or a query crop's {@link QUERY_CROP_LIMITS}). */
export function compareFingerprints(
  a: FingerprintPair,
  b: FingerprintPair,
  limits: DistanceLimits = { phash: PHASH_MAX_DISTANCE, dhash: DHASH_MAX_DISTANCE },
): { phash: number; dhash: number; similar: boolean } {
  const phash = hammingDistance(a.phash, b.phash);
  const dhash = hammingDistance(a.dhash, b.dhash);
  return { phash, dhash, similar: phash <= limits.phash && dhash <= limits.dhash };
}
