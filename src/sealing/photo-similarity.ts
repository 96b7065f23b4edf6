import { type FingerprintCandidate, fingerprintCandidates, type PhotoFingerprint, type PrintLookup } from "../storage/file-fingerprints.ts";
import { indexedCandidates, type SimilarityIndexes } from "../storage/similarity-index.ts";
import type { FileRow } from "../storage/rows.ts";
import type { ProofShards } from "../storage/write-shards.ts";
import { compareFingerprints, type FingerprintPair, QUERY_CROP_LIMITS } from "../../shared/perceptual-fingerprint.ts";
import {
  SIMILAR_TO_EARLIER_PHOTO,
  SIMILAR_TO_EARLIER_VIDEO,
  SIMILAR_TO_VIDEO_WITHIN_PROOF,
  SIMILAR_WITHIN_PROOF,
  type StoredSignal,
} from "../../shared/integrity-signals.ts";

/** Each likeness's code, by where the file it looks like is and what that file is (docs/adr/0063). */
const LIKENESS_CODES = {
  earlier: { photo: SIMILAR_TO_EARLIER_PHOTO, video: SIMILAR_TO_EARLIER_VIDEO },
  within: { photo: SIMILAR_WITHIN_PROOF, video: SIMILAR_TO_VIDEO_WITHIN_PROOF },
} as const;

/** A likeness found: the file it is on, the file it looks like and where, and the signal but for its code and words. */
interface Likeness {
  fileId: string;
  scope: keyof typeof LIKENESS_CODES;
  /** What the other file is, as the index (or the D1 table) said, or as the sealer printed it. */
  otherKind: FileRow["kind"];
  signal: Omit<StoredSignal, "code" | "detail">;
  words: (kind: FileRow["kind"]) => string;
}

/**
 * The similarity signals of a proof's photos and videos (docs/adr/0052, 0059): a likeness to a file, or to one of its
 * crops or frames, of another, earlier sealed proof of the same organization and mode (only sealed proofs' prints are
 * candidates, docs/adr/0064), naming the earliest sealed one within the thresholds and its closest pair (a copy of a copy
 * looks like both: the first sealing is the one a dispute is about, and issue 27 is judged by it), a photo's query
 * crops also compared with the earlier prints within their own stricter thresholds (a copy cropped off one edge, ADR
 * 0052); a likeness within this proof on the later of two
 * files within the thresholds, naming the earlier one. Each is named by what the file looks like (docs/adr/0063):
 * `similar_to_earlier_photo` or `similar_to_earlier_video`, `similar_within_proof` (a photo) or
 * `similar_to_video_within_proof`. Facts to weigh, never verdicts.
 */
export async function similaritySignals(
  shards: ProofShards,
  indexes: SimilarityIndexes,
  proof: { id: string; organizationId: string; mode: "test" | "live" },
  photos: readonly PhotoFingerprint[],
): Promise<Map<string, StoredSignal[]>> {
  const likenesses: Likeness[] = [];
  const candidates = await earlierPrints(shards, indexes, proof, photos.flatMap(lookups));
  for (const photo of photos) {
    const closest = candidates
      .flatMap((candidate) => [
        ...probes(photo).map((probe) => ({ candidate, distance: compareFingerprints(probe, candidate) })),
        ...photo.queryCrops.map((query) => ({ candidate, distance: compareFingerprints(query, candidate, QUERY_CROP_LIMITS) })),
      ])
      .filter(({ distance }) => distance.similar)
      .sort((a, b) => a.candidate.sealedAt.localeCompare(b.candidate.sealedAt) || a.distance.phash - b.distance.phash)[0];
    if (closest === undefined) continue;
    const { candidate, distance } = closest;
    likenesses.push({
      fileId: photo.fileId,
      scope: "earlier",
      otherKind: candidate.kind,
      signal: { proof_id: candidate.proofId, step_id: candidate.stepId, distance: distance.phash, sealed_at: candidate.sealedAt },
      words: (kind) =>
        `Looks like a ${kind} sealed on ${candidate.sealedAt} in proof ${candidate.proofId} (step ${candidate.stepId}): ${distance.phash} of 64 bits apart.`,
    });
  }
  photos.forEach((photo, index) => {
    for (const earlier of photos.slice(0, index)) {
      const distance = likeness(photo, earlier);
      if (distance === null) continue;
      likenesses.push({
        fileId: photo.fileId,
        scope: "within",
        otherKind: earlier.kind,
        signal: { other_file_id: earlier.fileId, distance },
        words: (kind) => `Looks like ${kind} ${earlier.fileId} of this proof (step ${earlier.stepId}): ${distance} of 64 bits apart.`,
      });
      return;
    }
  });
  const signals = new Map<string, StoredSignal[]>(photos.map((photo) => [photo.fileId, []]));
  for (const { fileId, otherKind, scope, signal, words } of likenesses) {
    signals.get(fileId)!.push({ code: LIKENESS_CODES[scope][otherKind], detail: words(otherKind), ...signal });
  }
  return signals;
}

/**
 * The earlier prints that may be close to `lookups`: the similarity index's of sealed proofs (docs/adr/0064) and those
 * still in the D1 table until the backfill has moved them (a file's prints in both while it moves, counted once). That
 * table has had no new row since the index, before write shards (docs/adr/0070): its rows of the organization are all
 * in its home shard, asked whichever shard the proof is in.
 */
async function earlierPrints(
  shards: ProofShards,
  indexes: SimilarityIndexes,
  proof: { id: string; organizationId: string; mode: "test" | "live" },
  lookups: readonly PrintLookup[],
): Promise<FingerprintCandidate[]> {
  const [indexed, notYetMoved] = await Promise.all([
    indexedCandidates(indexes, shards, proof, lookups),
    fingerprintCandidates(shards.open(shards.home), proof, lookups),
  ]);
  return [...new Map([...notYetMoved, ...indexed].map((candidate) => [`${candidate.fileId}/${candidate.variant}`, candidate])).values()];
}

/**
 * The prints of a file that are looked up and compared with every print of another: a photo's whole picture (its
 * crops are there to be found, ADR 0052); each of a video's frames, so that a copy trimmed at either end, whose
 * frames at 10, 50 and 90 % of its duration fall at other times of the original, is found by whichever of them
 * still falls near one of the original's (docs/adr/0063).
 */
const probes = (file: PhotoFingerprint): FingerprintPair[] => (file.kind === "video" ? [file, ...file.crops] : [file]);

/**
 * What a file is looked up by: its {@link probes}, each band to within one bit, and a photo's query crops by their
 * exact bands only: within their thresholds a query crop is at most 6 bits from the print it finds, so with 3 or
 * fewer one of the four bands is always equal, and the worst measured (ADR 0052) is 2; a statement holds four photos
 * so, where with one-bit neighbours it would hold one.
 */
const lookups = (file: PhotoFingerprint): PrintLookup[] => [...probes(file), ...file.queryCrops.map(({ phash }) => ({ phash, exactBands: true }))];

/**
 * How alike two files of one proof are, as the pHash distance of the closest pair within the thresholds: each one's
 * {@link probes} against every print of the other (either may be a crop of the other, or share a frame); null when none is.
 */
function likeness(photo: PhotoFingerprint, other: PhotoFingerprint): number | null {
  const pairs = probes(photo).flatMap((probe) => [other, ...other.crops].map((print) => compareFingerprints(probe, print)));
  pairs.push(...probes(other).flatMap((probe) => photo.crops.map((print) => compareFingerprints(probe, print))));
  const distances = pairs.filter((distance) => distance.similar).map((distance) => distance.phash);
  return distances.length === 0 ? null : Math.min(...distances);
}
