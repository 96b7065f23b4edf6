import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { readC2pa } from "../src/c2pa/c2pa.ts";
import { runSealJob } from "../src/seal-job.ts";
import { FRAME_POSITIONS, videoDecoderAvailable, videoFrames } from "../src/provenance/video-frames.ts";
import { videoFingerprints } from "../src/provenance/video-fingerprints.ts";
import { mediaFacts } from "../src/provenance/media-facts.ts";
import { compareFingerprints } from "../../shared/perceptual-fingerprint.ts";
import type { FrameFingerprint } from "../../shared/sealer-protocol.ts";
import { freePort, waitForHttp } from "../../scripts/lib/ports.ts";
import { pkiDir, sealContext } from "./support.ts";
import { job, written } from "./storage-stand-in.ts";
import { scene } from "./scenes.ts";

const work = mkdtempSync(join(tmpdir(), "video-fingerprint-test-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

/** Runs ffmpeg with `args` (no shell) and returns the file it wrote, `output` in the test's directory. */
function ffmpeg(args: string[], output: string): Uint8Array {
  const path = join(work, output);
  const run = spawnSync("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, path], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return new Uint8Array(readFileSync(path));
}

/**
 * A phone-like clip: a photograph-like scene of `seed` panned across over 3 s, 640×360 at 20 frames a second,
 * H.264 in MP4 (as Safari records it); each frame differs from the last, as a filmed scene's do. Small, so that
 * the tests' encodings stay short on a loaded machine.
 */
async function pannedVideo(seed: number, name: string): Promise<Uint8Array> {
  const photo = join(work, `${name}.jpg`);
  writeFileSync(photo, await scene(seed, 1200, 750));
  const pan = "crop=w=960:h=540:x='80*t':y='50*t',scale=640:360,setsar=1";
  return ffmpeg(["-loop", "1", "-i", photo, "-t", "3", "-r", "20", "-vf", pan, "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"], `${name}.mp4`);
}

/** The copies of a sealed video the issue names: another bitrate, scaled to half, and in the other browsers' formats. */
const COPIES: Record<string, { args: string[]; extension: string; type: string }> = {
  "re-encoded at 300 kbit/s": { args: ["-c:v", "libx264", "-b:v", "300k", "-preset", "veryfast"], extension: "mp4", type: "video/mp4" },
  "scaled to half": { args: ["-vf", "scale=iw/2:ih/2", "-c:v", "libx264", "-crf", "28", "-preset", "veryfast"], extension: "mp4", type: "video/mp4" },
  "HEVC, as Safari may send": {
    args: ["-c:v", "libx265", "-crf", "30", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "log-level=error"],
    extension: "mp4",
    type: "video/mp4",
  },
  "VP8 WebM": { args: ["-c:v", "libvpx", "-b:v", "500k", "-deadline", "realtime", "-cpu-used", "8"], extension: "webm", type: "video/webm" },
  "VP9 WebM, half size": {
    args: ["-vf", "scale=iw/2:ih/2", "-c:v", "libvpx-vp9", "-b:v", "300k", "-deadline", "realtime", "-cpu-used", "8"],
    extension: "webm",
    type: "video/webm",
  },
};

const printsOf = (bytes: Uint8Array, type: string) => videoFingerprints(bytes, type, mediaFacts(bytes, type).duration_ms);

test("ffmpeg is here (the tests' Debian packages, .ci/run)", async () => {
  assert.equal(await videoDecoderAvailable(), true);
});

test("three frames at 10, 50 and 90 % of an MP4's duration, upright, at most 480 px", async () => {
  const video = await pannedVideo(5, "frames");
  const frames = await videoFrames(video, "video/mp4", mediaFacts(video, "video/mp4").duration_ms);
  assert.deepEqual(
    frames.map((frame) => frame.at_ms),
    FRAME_POSITIONS.map((position) => Math.round(3000 * position)),
  );
  for (const frame of frames) {
    const { width, height, format } = await sharp(frame.png).metadata();
    assert.deepEqual({ width, height, format }, { width: 480, height: 270, format: "png" });
  }
  // A phone held upright records landscape pixels and a rotation in the track's matrix.
  const rotated = ffmpeg(["-i", join(work, "frames.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90"], "rotated.mp4");
  const [upright] = await videoFrames(rotated, "video/mp4", mediaFacts(rotated, "video/mp4").duration_ms);
  const { width, height } = await sharp(upright!.png).metadata();
  assert.deepEqual({ width, height }, { width: 270, height: 480 });
});

test("a WebM written as MediaRecorder writes it, without a duration, still gives its three frames", async () => {
  await pannedVideo(6, "live");
  // To a pipe, the muxer cannot go back to write the duration nor the cues: as a recording streamed to a file.
  const run = spawnSync(
    "ffmpeg",
    ["-nostdin", "-v", "error", "-i", join(work, "live.mp4"), "-c:v", "libvpx", "-b:v", "800k", "-deadline", "realtime", "-f", "webm", "pipe:1"],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  assert.equal(run.status, 0, run.stderr.toString());
  const webm = new Uint8Array(run.stdout);
  const probe = spawnSync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", "pipe:0"], { input: webm, encoding: "utf8" });
  assert.equal(probe.stdout.trim(), "N/A");
  const frames = await videoFrames(webm, "video/webm", mediaFacts(webm, "video/webm").duration_ms);
  assert.deepEqual(
    frames.map((frame) => frame.at_ms),
    FRAME_POSITIONS.map((position) => Math.round(3000 * position)),
  );
});

/**
 * The middle frame is what the Worker looks up (docs/adr/0059): it must stay within the photos' thresholds of the
 * original's; the others are measured (the ADR's figures) and must each stay within them of the same frame too.
 */
test("a copy re-encoded, scaled to half or in another codec stays within the photos' thresholds, frame by frame", async (context) => {
  for (const seed of [21, 22]) {
    const original = await pannedVideo(seed, `original-${seed}`);
    const prints = await printsOf(original, "video/mp4");
    assert.equal(prints.length, 3);
    for (const [name, copy] of Object.entries(COPIES)) {
      const bytes = ffmpeg(["-i", join(work, `original-${seed}.mp4`), ...copy.args], `copy-${seed}.${copy.extension}`);
      const copied = await printsOf(bytes, copy.type);
      assert.equal(copied.length, 3, name);
      const distances = copied.map((print, index) => compareFingerprints(print, prints[index]!));
      context.diagnostic(`scene ${seed} ${name}: ${distances.map((distance) => `pHash ${distance.phash} dHash ${distance.dhash}`).join(", ")}`);
      for (const distance of distances) assert.ok(distance.similar, `scene ${seed} ${name}: ${JSON.stringify(distances)}`);
    }
  }
});

test("distinct videos' frames are not within the thresholds of one another", async (context) => {
  const prints: FrameFingerprint[][] = [];
  for (const seed of [31, 32, 33]) prints.push(await printsOf(await pannedVideo(seed, `distinct-${seed}`), "video/mp4"));
  let closest = 64;
  for (let a = 0; a < prints.length; a++) {
    for (let b = a + 1; b < prints.length; b++) {
      for (const print of prints[a]!) {
        for (const other of prints[b]!) {
          const distance = compareFingerprints(print, other);
          closest = Math.min(closest, distance.phash);
          assert.ok(!distance.similar, `videos ${a} and ${b}: ${JSON.stringify(distance)}`);
        }
      }
    }
  }
  context.diagnostic(`closest pHash between distinct videos: ${closest}`);
});

test("without ffmpeg, or past the size or time limit, a video gets no frame and nothing fails", async () => {
  const video = await pannedVideo(7, "limits");
  const duration = mediaFacts(video, "video/mp4").duration_ms;
  assert.deepEqual(await videoFrames(video, "video/mp4", duration, undefined, { maxBytes: video.length - 1, timeLimitMs: 20_000 }), []);
  assert.deepEqual(await videoFrames(video, "video/mp4", duration, undefined, { maxBytes: video.length, timeLimitMs: 1 }), []);
  process.env.FFMPEG_PATH = join(work, "no-ffmpeg-here");
  try {
    assert.equal(await videoDecoderAvailable(), false);
    assert.deepEqual(await videoFingerprints(video, "video/mp4", duration), []);
    const result = await runSealJob(sealContext(), job([{ name: "clip.mp4", type: "video/mp4", bytes: video }]));
    assert.equal(result.status, "sealed");
    if (result.status === "sealed") assert.deepEqual(result.files[0]!.frame_fingerprints, []);
  } finally {
    delete process.env.FFMPEG_PATH;
  }
});

test("sealing returns a video's frame fingerprints and signs them among the observed facts", async () => {
  const video = await pannedVideo(8, "sealed");
  const result = await runSealJob(sealContext(), job([{ name: "clip.mp4", type: "video/mp4", bytes: video }]));
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const file = result.files[0]!;
  assert.equal(file.fingerprint, null);
  assert.deepEqual(file.frame_fingerprints, await printsOf(video, "video/mp4"));
  const reading = await readC2pa(written.get(`/signed/${file.id}`)!, file.sniffed_type, result.c2pa_trust_anchor_pem);
  const assertions = (reading.activeManifest as { assertions: { label: string; data: { observed: Record<string, unknown> } }[] }).assertions;
  const capture = assertions.find((assertion) => assertion.label === "com.proofseal.capture")!.data;
  assert.deepEqual(capture.observed.frame_fingerprints, file.frame_fingerprints);
  assert.equal(capture.observed.fingerprint, null);
});

test("a sealer started without ffmpeg says so once it is up, and serves", async () => {
  const port = await freePort();
  const sealer = spawn(process.execPath, [join(import.meta.dirname, "../src/main.ts")], {
    env: {
      ...process.env,
      SEALER_PORT: String(port),
      SEALER_SECRET: "video-test-secret",
      PKI_DIR: pkiDir,
      TSA_URL: "",
      FFMPEG_PATH: join(work, "no-ffmpeg-here"),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let alive = true;
  let errors = "";
  sealer.on("exit", () => (alive = false));
  sealer.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")));
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, 30_000, () => alive);
    for (let waited = 0; !errors.includes("ffmpeg not found") && waited < 10_000; waited += 100) await new Promise((resume) => setTimeout(resume, 100));
    assert.match(errors, /ffmpeg not found: videos are sealed without frame fingerprints/);
  } finally {
    sealer.kill("SIGTERM");
  }
});

/** Left to guess, ffmpeg would read this playlist as HLS and decode the local file it names (checked by hand). */
test("ffmpeg reads a video as its sniffed type only: a playlist naming another file gives no frame", async () => {
  const segment = ffmpeg(
    ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mpegts"],
    "elsewhere.ts",
  );
  assert.ok(segment.length > 0);
  const playlist = new TextEncoder().encode(`#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:3.0,\n${join(work, "elsewhere.ts")}\n#EXT-X-ENDLIST\n`);
  for (const type of ["video/mp4", "video/webm"]) assert.deepEqual(await videoFrames(playlist, type, 3000), [], type);
  assert.deepEqual(await videoFrames(segment, "image/jpeg", 3000), []);
});
