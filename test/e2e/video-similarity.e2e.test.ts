import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { scene } from "../../sealer/test/scenes.ts";

let stack: Stack;
const work = mkdtempSync(join(tmpdir(), "video-similarity-"));
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Runs ffmpeg with `args` (no shell) and returns what it wrote to `output`. */
function ffmpeg(args: string[], output: string): Buffer {
  const path = join(work, output);
  const run = spawnSync("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, path], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`ffmpeg: ${run.stderr}`);
  return readFileSync(path);
}

/** Seals one proof holding `video` in a video step; returns the owner's view and the public one. */
async function seal(templateId: string, video: { bytes: Buffer; type: string }) {
  const { completed } = await captureOverHttp(
    stack,
    stack.testKey,
    { external_reference: `video-${Date.now()}-${Math.random()}`, party: "provider", template_id: templateId },
    [
      {
        file: video.type === "video/webm" ? "clip.webm" : "clip.mp4",
        type: video.type,
        step: "walkaround",
        bytes: video.bytes,
        capture: { method: "file", device_time: new Date().toISOString() },
      },
    ],
  );
  expect(completed.status).toBe(200);
  const proof = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 120_000);
  expect(proof.status).toBe("sealed");
  const publicProof = (await request(`${stack.baseUrl}/v1/public/proofs/${proof.id}`)).body;
  return { proof, publicProof };
}

describe("a video sealed again after re-encoding is flagged through the API (issue 27, ADR 0059)", () => {
  it("flags a copy at another bitrate and half size with the first proof's id, as a photo is; another video raises nothing", async () => {
    const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
      token: stack.testKey,
      body: {
        name: "Walk-around",
        welcome: { title: "Hello" },
        steps: [{ id: "walkaround", label: "Video", instruction: "Walk around", kind: "video", max_count: 1 }],
      },
    });
    expect(template.status).toBe(201);
    const panned = async (seed: number, name: string) => {
      writeFileSync(join(work, `${name}.jpg`), await scene(seed, 1200, 750));
      const pan = "crop=w=960:h=540:x='80*t':y='50*t',scale=640:360,setsar=1";
      const args = [
        "-loop",
        "1",
        "-i",
        join(work, `${name}.jpg`),
        "-t",
        "3",
        "-r",
        "20",
        "-vf",
        pan,
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-pix_fmt",
        "yuv420p",
      ];
      return ffmpeg(args, `${name}.mp4`);
    };
    const original = await panned(51, "original");
    const first = await seal(template.body.id, { bytes: original, type: "video/mp4" });
    expect(first.proof.files[0].signals).toEqual([]);
    const copy = ffmpeg(["-i", join(work, "original.mp4"), "-vf", "scale=iw/2:ih/2", "-c:v", "libvpx", "-b:v", "300k", "-deadline", "realtime"], "copy.webm");
    const again = await seal(template.body.id, { bytes: copy, type: "video/webm" });
    const signal = again.proof.files[0].signals.find((s: { code: string }) => s.code === "similar_to_earlier_photo");
    expect(signal).toMatchObject({ proof_id: first.proof.id, step_id: "walkaround", sealed_at: first.proof.sealed_at });
    expect(signal.detail).toBe(
      `Looks like a photo sealed on ${first.proof.sealed_at} in proof ${first.proof.id} (step walkaround): ${signal.distance} of 64 bits apart.`,
    );
    expect(again.publicProof.files[0].signals.map((s: { code: string }) => s.code)).toContain("similar_to_earlier_photo");
    expect(JSON.stringify(again.publicProof)).not.toContain(first.proof.id);
    const other = await seal(template.body.id, { bytes: await panned(52, "other"), type: "video/mp4" });
    expect(other.proof.files[0].signals).toEqual([]);
  });
});
