import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { downloadedReport } from "./support/report-download.ts";
import { scene } from "../../sealer/test/scenes.ts";
import { PAGE_MESSAGES } from "../../src/verification/page/messages.ts";

let stack: Stack;
let receiver: Server;
/** The bodies of the webhook deliveries the local receiver got. */
const delivered: string[] = [];
const HOOK = "https://hooks.example.com:9443/hook";
const work = mkdtempSync(join(tmpdir(), "video-similarity-"));
beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    delivered.push(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200).end("thanks");
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const port = (receiver.address() as { port: number }).port;
  stack = await startStack({ env: { WEBHOOK_RESOLVE: `hooks.example.com:9443=127.0.0.1:${port}` } });
});
afterAll(async () => {
  await stack?.stop();
  receiver?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The `proof.sealed` webhook body of `proofId`, once delivered. */
async function sealedEvent(proofId: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const body = delivered.map((text) => JSON.parse(text)).find((event) => event.event === "proof.sealed" && event.proof_id === proofId);
    if (body) return body;
    if (Date.now() > deadline) throw new Error(`no proof.sealed delivered for ${proofId}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

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

describe("a video sealed again after re-encoding is flagged through the API (issue 27, ADR 0059, 0063)", () => {
  it("flags a copy at another bitrate and half size as similar_to_earlier_video in every place, and a trimmed copy; another video raises nothing", async () => {
    const endpoint = await request(`${stack.baseUrl}/v1/webhook-endpoints`, { token: stack.testKey, body: { url: HOOK, events: ["proof.sealed"] } });
    expect(endpoint.status).toBe(201);
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
    const signal = again.proof.files[0].signals.find((s: { code: string }) => s.code === "similar_to_earlier_video");
    expect(signal).toMatchObject({ proof_id: first.proof.id, step_id: "walkaround", sealed_at: first.proof.sealed_at });
    expect(signal.detail).toBe(
      `Looks like a video sealed on ${first.proof.sealed_at} in proof ${first.proof.id} (step walkaround): ${signal.distance} of 64 bits apart.`,
    );
    expect((await sealedEvent(again.proof.id)).signals).toContainEqual({ file_id: again.proof.files[0].id, ...signal });
    const codes = again.publicProof.files[0].signals.map((s: { code: string }) => s.code);
    expect(codes).toContain("similar_to_earlier_video");
    expect(codes).not.toContain("similar_to_earlier_photo");
    expect(JSON.stringify(again.publicProof)).not.toContain(first.proof.id);
    // The sentence on the page (its warning summary and the video itself) and in the report, never the photos' one.
    const sentence = PAGE_MESSAGES.en.signal_similar_to_earlier_video!;
    const page = await (await fetch(`${stack.baseUrl}/p/${again.proof.id}?lang=en`, { headers: { Accept: "text/html" } })).text();
    const summary = page.match(/<section class="signal-summary"[\s\S]*?<\/section>/)?.[0] ?? "";
    expect(summary).toContain(`data-code="similar_to_earlier_video"`);
    expect(summary).toContain(sentence);
    expect(page).toContain(`<li data-code="similar_to_earlier_video">${sentence}`);
    expect(page).not.toContain(PAGE_MESSAGES.en.signal_similar_to_earlier_photo!);
    expect(page).not.toContain(first.proof.id);
    const report = await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${again.proof.id}/report.pdf`);
    writeFileSync(join(work, "report.pdf"), report);
    const text = spawnSync("pdftotext", [join(work, "report.pdf"), "-"], { encoding: "utf8" }).stdout.replace(/\s+/g, " ");
    expect(text).toContain(sentence);
    expect(text).not.toContain(first.proof.id);
    // Its last fifth cut (docs/adr/0063): its frames fall at other times, its first one still near the original's first.
    const trimmed = ffmpeg(
      ["-i", join(work, "original.mp4"), "-t", "2.4", "-vf", "scale=iw/2:ih/2", "-c:v", "libvpx", "-b:v", "300k", "-deadline", "realtime"],
      "trimmed.webm",
    );
    const cut = await seal(template.body.id, { bytes: trimmed, type: "video/webm" });
    const likeness = cut.proof.files[0].signals.find((s: { code: string }) => s.code === "similar_to_earlier_video");
    expect([first.proof.id, again.proof.id]).toContain(likeness?.proof_id);
    const other = await seal(template.body.id, { bytes: await panned(52, "other"), type: "video/mp4" });
    expect(other.proof.files[0].signals).toEqual([]);
  });
});
