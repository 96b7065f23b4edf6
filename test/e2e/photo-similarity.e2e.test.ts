import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import sharp from "sharp";
import { scene, VARIANTS } from "../../sealer/test/scenes.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const chosen = () => ({ method: "file", device_time: new Date().toISOString() });

/** Captures `photos` in one proof over HTTP and waits for it to be sealed; returns the owner's and the public view. */
async function seal(photos: { bytes: Uint8Array; type: string }[]) {
  const { completed } = await captureOverHttp(
    stack,
    stack.testKey,
    { external_reference: `similar-${Date.now()}-${Math.random()}`, party: "provider" },
    photos.map((photo, index) => ({
      file: `photo-${index}.${photo.type === "image/png" ? "png" : "jpg"}`,
      type: photo.type,
      bytes: Buffer.from(photo.bytes),
      capture: chosen(),
    })),
  );
  expect(completed.status).toBe(200);
  const proof = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 120_000);
  expect(proof.status).toBe("sealed");
  const publicProof = (await request(`${stack.baseUrl}/v1/public/proofs/${proof.id}`)).body;
  return { proof, publicProof };
}

const codes = (file: { signals: { code: string }[] }) => file.signals.map((signal) => signal.code);

describe("a photo sealed again after re-encoding is flagged through the API (issue 27)", () => {
  it("flags quality 60, half size, a 5 % crop, 5 % off one edge and a PNG copy with the first proof's id; distinct photos raise nothing", async () => {
    const original = await scene(41);
    const first = await seal([{ bytes: original, type: "image/jpeg" }]);
    expect(first.proof.files[0].signals).toEqual([]);
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const type = name === "converted to PNG" ? "image/png" : "image/jpeg";
      const again = await seal([{ bytes: await variant(original), type }]);
      const signal = again.proof.files[0].signals.find((s: { code: string }) => s.code === "similar_to_earlier_photo");
      expect(signal, name).toMatchObject({ proof_id: first.proof.id, step_id: "photos", sealed_at: first.proof.sealed_at });
      expect(signal.distance, name).toBeLessThanOrEqual(10);
      expect(signal.detail).toBe(
        `Looks like a photo sealed on ${first.proof.sealed_at} in proof ${first.proof.id} (step photos): ${signal.distance} of 64 bits apart.`,
      );
      expect(codes(again.publicProof.files[0]), name).toContain("similar_to_earlier_photo");
      expect(JSON.stringify(again.publicProof), name).not.toContain(first.proof.id);
    }
    // 5 % off the top edge only: its whole picture lies between two of the original's stored crops (8 bits from the
    // nearest here, up to 16 on real photographs: docs/adr/0052); its query crop 5 % off the left is the original's
    // bottom-right crop, so the likeness named is that one's, within the 2 bits measured on real photographs.
    const { width = 0, height = 0 } = await sharp(original).metadata();
    const offTop = { left: 0, top: height - Math.round(height * 0.95), width, height: Math.round(height * 0.95) };
    const edge = await seal([{ bytes: new Uint8Array(await sharp(original).extract(offTop).jpeg({ quality: 85 }).toBuffer()), type: "image/jpeg" }]);
    const edgeSignal = edge.proof.files[0].signals.find((s: { code: string }) => s.code === "similar_to_earlier_photo");
    expect(edgeSignal).toMatchObject({ proof_id: first.proof.id, step_id: "photos", sealed_at: first.proof.sealed_at });
    expect(edgeSignal.distance).toBeLessThanOrEqual(2);
    expect(JSON.stringify(edge.publicProof)).not.toContain(first.proof.id);
    // Distinct scenes in one proof: no likeness between them nor with the photos above.
    const distinct = await seal(await Promise.all(Array.from({ length: 8 }, async (_, index) => ({ bytes: await scene(200 + index), type: "image/jpeg" }))));
    for (const file of distinct.proof.files) expect(file.signals, file.id).toEqual([]);
  });
});
