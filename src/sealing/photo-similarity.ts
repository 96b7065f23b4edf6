import type { Database } from "../db/client.ts";
import { fingerprintCandidates, type PhotoFingerprint } from "../storage/file-fingerprints.ts";
import { compareFingerprints } from "../../shared/perceptual-fingerprint.ts";
import { SIMILAR_TO_EARLIER_PHOTO, SIMILAR_WITHIN_PROOF, type StoredSignal } from "../../shared/integrity-signals.ts";

/**
 * The similarity signals of a proof's photos (docs/adr/0052): `similar_to_earlier_photo` when a photo is within
 * the thresholds of a photo, or of one of its crops, of another, earlier sealed proof of the same organization and mode (only sealed
 * proofs have fingerprint rows), naming the closest one (then the earliest); `similar_within_proof` on the later
 * of two photos of this proof within the thresholds, naming the earlier one. Facts to weigh, never verdicts.
 */
export async function similaritySignals(
  db: Database,
  proof: { id: string; organizationId: string; mode: "test" | "live" },
  photos: readonly PhotoFingerprint[],
): Promise<Map<string, StoredSignal[]>> {
  const signals = new Map<string, StoredSignal[]>(photos.map((photo) => [photo.fileId, []]));
  const candidates = await fingerprintCandidates(db, proof, photos);
  for (const photo of photos) {
    const closest = candidates
      .map((candidate) => ({ candidate, distance: compareFingerprints(photo, candidate) }))
      .filter(({ distance }) => distance.similar)
      .sort((a, b) => a.distance.phash - b.distance.phash || a.candidate.sealedAt.localeCompare(b.candidate.sealedAt))[0];
    if (closest === undefined) continue;
    const { candidate, distance } = closest;
    signals.get(photo.fileId)!.push({
      code: SIMILAR_TO_EARLIER_PHOTO,
      detail: `Looks like a photo sealed on ${candidate.sealedAt} in proof ${candidate.proofId} (step ${candidate.stepId}): ${distance.phash} of 64 bits apart.`,
      proof_id: candidate.proofId,
      step_id: candidate.stepId,
      distance: distance.phash,
      sealed_at: candidate.sealedAt,
    });
  }
  photos.forEach((photo, index) => {
    for (const earlier of photos.slice(0, index)) {
      const distance = likeness(photo, earlier);
      if (distance === null) continue;
      signals.get(photo.fileId)!.push({
        code: SIMILAR_WITHIN_PROOF,
        detail: `Looks like photo ${earlier.fileId} of this proof (step ${earlier.stepId}): ${distance} of 64 bits apart.`,
        other_file_id: earlier.fileId,
        distance,
      });
      return;
    }
  });
  return signals;
}

/**
 * How alike two photos of one proof are, as the pHash distance of the closest pair within the thresholds: either
 * whole picture against the other's whole picture or crops (either may be a crop of the other); null when none is.
 */
function likeness(photo: PhotoFingerprint, other: PhotoFingerprint): number | null {
  const pairs = [other, ...other.crops].map((print) => compareFingerprints(photo, print));
  pairs.push(...photo.crops.map((print) => compareFingerprints(other, print)));
  const distances = pairs.filter((distance) => distance.similar).map((distance) => distance.phash);
  return distances.length === 0 ? null : Math.min(...distances);
}
