import type { FrameFingerprint } from "../../../shared/sealer-protocol.ts";
import { decodePicture } from "../thumbnail.ts";
import { pixelFacts } from "./fingerprint.ts";
import { VIDEO_LIMITS, videoFrames } from "./video-frames.ts";

/**
 * The perceptual fingerprints of a few frames of a verified video (docs/adr/0059): each frame decoded by ffmpeg,
 * then reduced and hashed exactly as a photo is (sealer/src/provenance/fingerprint.ts), so that a copy of the video
 * re-encoded at another bitrate or scaled, whose frames at the same times are the same pictures, stays within
 * the photos' thresholds of it. [] when no frame decodes (no ffmpeg here, a file too large, a decoder's failure).
 */
export async function videoFingerprints(
  bytes: Uint8Array,
  type: string,
  durationMs: number | null,
  signal?: AbortSignal,
  limits = VIDEO_LIMITS,
): Promise<FrameFingerprint[]> {
  const prints: FrameFingerprint[] = [];
  for (const frame of await videoFrames(bytes, type, durationMs, signal, limits)) {
    const picture = await decodePicture(frame.png, "image/png");
    if (picture !== null) prints.push({ at_ms: frame.at_ms, ...(await pixelFacts(picture)).fingerprint });
  }
  return prints;
}
