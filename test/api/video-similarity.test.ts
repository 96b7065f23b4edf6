import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { FrameFingerprint, SealJob } from "../../shared/sealer-protocol.ts";
import { phashBands } from "../../shared/perceptual-fingerprint.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

/** A video's frames at 10, 50 and 90 % (docs/adr/0059); the copy's middle frame has one bit flipped in each pHash band. */
const FRAMES: FrameFingerprint[] = [
  { at_ms: 300, phash: "5a3c0ff0c33ca569", dhash: "f0f0c3c30f0fa5a5" },
  { at_ms: 1500, phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" },
  { at_ms: 2700, phash: "3c3ca5a55a5ac3c3", dhash: "a5a50f0ff0f03c3c" },
];
const COPY_MIDDLE: FrameFingerprint = { at_ms: 1500, phash: "a5c2f00e3cc25a97", dhash: "0f0f3c3cf0f05a5b" };
const OTHER: FrameFingerprint[] = [
  { at_ms: 300, phash: "1111222233334444", dhash: "1111222233334444" },
  { at_ms: 1500, phash: "8888444422221111", dhash: "8888444422221111" },
  { at_ms: 2700, phash: "f0f00f0ff0f00f0f", dhash: "0f0ff0f00f0ff0f0" },
];

/** Seals a pending proof of one video whose frames the sealer fingerprinted as `frames` ([]: ffmpeg decoded none). */
async function sealedVideo(organizationId: string, frames: FrameFingerprint[]) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1);
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => ({ ...file, sniffed_type: "video/mp4", frame_fingerprints: frames }));
    return answer;
  });
  expect(await sealProof(deps, proofId)).toBe("sealed");
  return { proofId, fileId: fileIds[0]! };
}

const rowsOf = async (fileId: string) =>
  (
    await env.DB.prepare("SELECT variant, phash, dhash, band0, band1, band2, band3 FROM file_fingerprints WHERE file_id = ? ORDER BY variant")
      .bind(fileId)
      .all<{ variant: number; phash: string; dhash: string; band0: number; band1: number; band2: number; band3: number }>()
  ).results;

async function signalsOf(proofId: string, key: string): Promise<unknown[]> {
  return (await callJson(`/v1/proofs/${proofId}`, { key })).body.files[0].signals;
}

describe("videos that look like earlier ones (issue 27, ADR 0059)", () => {
  it("stores a video's middle frame as its variant 0 and the two others beside it, banded as photos are", async () => {
    const org = await createOrganization();
    const { fileId } = await sealedVideo(org.id, FRAMES);
    const rows = await rowsOf(fileId);
    expect(rows.map(({ variant, phash, dhash }) => ({ variant, phash, dhash }))).toEqual([
      { variant: 0, phash: FRAMES[1]!.phash, dhash: FRAMES[1]!.dhash },
      { variant: 1, phash: FRAMES[0]!.phash, dhash: FRAMES[0]!.dhash },
      { variant: 2, phash: FRAMES[2]!.phash, dhash: FRAMES[2]!.dhash },
    ]);
    expect([rows[0]!.band0, rows[0]!.band1, rows[0]!.band2, rows[0]!.band3]).toEqual(phashBands(FRAMES[1]!.phash));
  });

  it("flags a copy whose middle frame is near the earlier video's with the photos' signal and words; another video and a video without frames raise nothing", async () => {
    const org = await createOrganization();
    const first = await sealedVideo(org.id, FRAMES);
    const sealedAt = (await env.DB.prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(first.proofId).first<{ sealed_at: string }>())!.sealed_at;
    const copy = await sealedVideo(org.id, [FRAMES[0]!, COPY_MIDDLE, FRAMES[2]!]);
    expect(await signalsOf(copy.proofId, org.testKey)).toContainEqual({
      code: "similar_to_earlier_photo",
      detail: `Looks like a photo sealed on ${sealedAt} in proof ${first.proofId} (step photos): 4 of 64 bits apart.`,
      proof_id: first.proofId,
      step_id: "photos",
      distance: 4,
      sealed_at: sealedAt,
    });
    const other = await sealedVideo(org.id, OTHER);
    expect(await signalsOf(other.proofId, org.testKey)).toEqual([]);
    const undecoded = await sealedVideo(org.id, []);
    expect(await signalsOf(undecoded.proofId, org.testKey)).toEqual([]);
    expect(await rowsOf(undecoded.fileId)).toEqual([]);
  });
});
