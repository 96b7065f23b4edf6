import { createHash } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { realPhotos } from "./support/real-photos.ts";
import { startStack, type Stack } from "./support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** The most photos the default template's step takes in one proof. */
const PHOTOS_PER_PROOF = 20;
/** What would name another photo: a likeness, or the same bytes. */
const MATCHES = ["similar_to_earlier_photo", "similar_within_proof", "sealed_before"];

describe("real photographs sealed in one organization raise no false match (issue 27)", () => {
  it("seals 322 distinct photographs from eight Debian packages, proof after proof, without a likeness between any two, then a re-encoded copy flagged", async ({
    skip,
  }) => {
    const photos = realPhotos();
    if (typeof photos === "string") {
      console.log(`!! SKIPPED real photographs: ${photos}`);
      return skip();
    }
    // The packages are here, so every listed photograph is read (a missing one throws) and the 200 are
    // reached: never a skip from here on.
    expect(photos).toHaveLength(322);
    expect(photos.length).toBeGreaterThanOrEqual(200);
    // As a phone sends them: JPEG at quality 90, at most 2,000 px (the wallpapers are up to 5120×2880 PNGs).
    const jpegs = await Promise.all(
      photos.map(async (photo) => ({
        name: photo.name,
        bytes: await sharp(photo.bytes).rotate().resize(2000, 2000, { fit: "inside", withoutEnlargement: true }).jpeg({ quality: 90 }).toBuffer(),
      })),
    );
    expect(new Set(photos.map((photo) => createHash("sha256").update(photo.bytes).digest("hex"))).size).toBe(photos.length);
    // The control, so that the test cannot pass with the matching switched off: the first photo again, at quality 60,
    // sealed last; it alone must be flagged, with the first proof's id.
    const control = { name: "control", bytes: await sharp(jpegs[0]!.bytes).jpeg({ quality: 60 }).toBuffer() };
    jpegs.push(control);

    const matched: string[] = [];
    const proofIds: string[] = [];
    // One proof after another, so that each is compared with every photo sealed before it.
    for (let start = 0; start < jpegs.length; start += PHOTOS_PER_PROOF) {
      const batch = jpegs.slice(start, start + PHOTOS_PER_PROOF);
      const { completed } = await captureOverHttp(
        stack,
        stack.testKey,
        { external_reference: `real-photos-${start}`, party: "provider" },
        batch.map((photo, index) => ({
          file: `photo-${index}.jpg`,
          type: "image/jpeg",
          bytes: photo.bytes,
          capture: { method: "file", device_time: new Date().toISOString() },
        })),
      );
      expect(completed.status).toBe(200);
      const proof = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 300_000);
      expect(proof.status).toBe("sealed");
      expect(proof.files).toHaveLength(batch.length);
      proofIds.push(proof.id);
      const names = new Map(batch.map((photo) => [createHash("sha256").update(photo.bytes).digest("hex"), photo.name]));
      for (const file of proof.files as { observed: { sha256: string }; signals: { code: string; detail: string }[] }[]) {
        for (const signal of file.signals.filter((s) => MATCHES.includes(s.code))) matched.push(`${names.get(file.observed.sha256)}: ${signal.detail}`);
      }
    }
    expect(matched).toEqual([expect.stringMatching(new RegExp(`^control: Looks like a photo sealed on .* in proof ${proofIds[0]} `))]);
  }, 1_200_000);
});
