import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { boundedCache } from "../../../shared/bounded-cache.ts";
import { withDecodingSlot } from "../thumbnail.ts";

/**
 * A few frames of a sealed video, decoded by ffmpeg (the Debian package, in the sealer's image: docs/adr/0059)
 * from the file already verified, each as a small PNG for the photos' decode and fingerprint. ffmpeg is run with
 * arguments, never through a shell, on a private copy of the file, one frame at a time, under one time limit a
 * video; a file too large, a decoder that fails or stalls, or an absent ffmpeg give fewer frames or none, never a
 * failed seal.
 */

/** Where the frames are taken, as shares of the video's duration: past the first shot's motion, the middle, before the end. */
export const FRAME_POSITIONS = [0.1, 0.5, 0.9] as const;

export interface VideoLimits {
  /** Larger videos get no frames: writing and demuxing them would cost more than the prints are worth (docs/adr/0059). */
  maxBytes: number;
  /** The time every ffmpeg and ffprobe call of one video shares, wall clock; what is not decoded by then is left out. */
  timeLimitMs: number;
}

export const VIDEO_LIMITS: VideoLimits = { maxBytes: 256 * 1024 * 1024, timeLimitMs: 20_000 };
/**
 * The demuxer of each accepted video type, named so that ffmpeg never guesses another format from the content
 * (a playlist, a concatenation list) and, with only the `file` protocol allowed, never opens anything but the copy.
 */
const DEMUXERS: Record<string, string> = { "video/mp4": "mov", "video/quicktime": "mov", "video/webm": "matroska" };
/** A frame's long side, as the photos' decoded picture (sealer/src/thumbnail.ts) is at most. */
const FRAME_MAX_PX = 480;
/** A PNG frame of at most 480×480 weighs well under this; more means ffmpeg wrote something else. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export interface VideoFrame {
  /** Where the frame was asked for, in milliseconds from the start. */
  at_ms: number;
  png: Uint8Array;
}

/** The programs, from the PATH unless FFMPEG_PATH and FFPROBE_PATH name others (read at each use). */
const ffmpeg = () => process.env.FFMPEG_PATH ?? "ffmpeg";
const ffprobe = () => process.env.FFPROBE_PATH ?? "ffprobe";

/** Per pair of programs (the environment names them): a handful at most, each asked once a process. */
const availability = boundedCache<string, Promise<boolean>>({ maxEntries: 4 });

/** Whether ffmpeg and ffprobe run here (asked once a process for each pair): without them, videos get no frame fingerprints. */
export function videoDecoderAvailable(): Promise<boolean> {
  const programs = [ffmpeg(), ffprobe()];
  return availability.getOrSet(programs.join("\n"), () =>
    Promise.all(programs.map((program) => run(program, ["-version"], AbortSignal.timeout(10_000), 64 * 1024))).then(
      () => true,
      () => false,
    ),
  );
}

/**
 * The frames at {@link FRAME_POSITIONS} of a verified video, as PNGs upright and at most 480 px on their long side;
 * `type` is its sniffed type; `durationMs` the container's when the sealer read it (MP4 `mvhd`), else ffprobe finds
 * it. [] when ffmpeg is absent, the type is not a video's, the file is too large, or no frame decodes in time; a
 * position past the video's last frame is left out, and a decoder's failure ends the frames there.
 */
export async function videoFrames(
  bytes: Uint8Array,
  type: string,
  durationMs: number | null,
  aborted?: AbortSignal,
  limits = VIDEO_LIMITS,
): Promise<VideoFrame[]> {
  const demuxer = DEMUXERS[type];
  if (demuxer === undefined || bytes.length > limits.maxBytes || !(await videoDecoderAvailable())) return [];
  const input = (path: string) => ["-protocol_whitelist", "file", "-f", demuxer, "-i", path];
  const timeLimit = AbortSignal.timeout(limits.timeLimitMs);
  const signal = aborted ? AbortSignal.any([aborted, timeLimit]) : timeLimit;
  const directory = await mkdtemp(join(tmpdir(), "sealer-video-"));
  const frames: VideoFrame[] = [];
  try {
    const path = join(directory, "video");
    await writeFile(path, bytes, { mode: 0o600 });
    const duration = durationMs ?? (await probedDurationMs(input(path), signal));
    if (duration === null || duration <= 0) return [];
    for (const position of FRAME_POSITIONS) {
      const atMs = Math.round(duration * position);
      const png = await frameAt(input(path), atMs, signal);
      if (png !== null) frames.push({ at_ms: atMs, png });
    }
    return frames;
  } catch (error) {
    // The job's own end stops the seal; the time limit or a decoder's failure only leaves the frames decoded so far.
    aborted?.throwIfAborted();
    console.warn(JSON.stringify({ level: "warn", message: `${frames.length} of ${FRAME_POSITIONS.length} video frames: ${(error as Error).message}` }));
    return frames;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The video's duration as ffprobe reads it: the container's, or, when the container has none (MediaRecorder's
 * WebM is written as it is recorded, without one), the last video packet's end, read by demuxing without decoding.
 */
async function probedDurationMs(input: string[], signal: AbortSignal): Promise<number | null> {
  const container = await run(
    ffprobe(),
    ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", ...input],
    signal,
    4096,
  );
  const seconds = Number.parseFloat(container.toString("utf8"));
  if (Number.isFinite(seconds) && seconds > 0) return Math.round(seconds * 1000);
  const packets = await run(
    ffprobe(),
    ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=print_section=0", ...input],
    signal,
    16 * 1024 * 1024,
  );
  let end = 0;
  for (const line of packets.toString("utf8").split("\n")) {
    const [pts, length] = line.split(",").map(Number.parseFloat);
    if (Number.isFinite(pts)) end = Math.max(end, pts! + (Number.isFinite(length) ? length! : 0));
  }
  return end > 0 ? Math.round(end * 1000) : null;
}

/**
 * One frame at `atMs` (input seeking: decoded from the keyframe before it, so exact), turned upright by the
 * container's rotation, shrunk by area averaging to fit 480 px, as a PNG; null when none decodes there. One
 * decoding thread, within the process's bound on pictures decoded at once: the signing threads take the cores.
 */
function frameAt(input: string[], atMs: number, signal: AbortSignal): Promise<Uint8Array | null> {
  const fit = `scale=w='min(${FRAME_MAX_PX},iw)':h='min(${FRAME_MAX_PX},ih)':force_original_aspect_ratio=decrease:flags=area`;
  const args = ["-nostdin", "-v", "error", "-threads", "1", "-ss", (atMs / 1000).toFixed(3), ...input];
  args.push("-map", "0:v:0", "-frames:v", "1", "-vf", fit, "-c:v", "png", "-f", "image2pipe", "pipe:1");
  return withDecodingSlot(async () => {
    const png = await run(ffmpeg(), args, signal, MAX_FRAME_BYTES);
    return png.length > 0 ? new Uint8Array(png) : null;
  });
}

/**
 * Runs a program with arguments (no shell), its standard output collected up to `maxBytes`; rejects when it
 * cannot start, exits other than 0, writes more, or `signal` aborts (it is then killed).
 */
function run(program: string, args: string[], signal: AbortSignal, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], signal, killSignal: "SIGKILL" });
    const chunks: Buffer[] = [];
    let length = 0;
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => {
      length += chunk.length;
      if (length > maxBytes) child.kill("SIGKILL");
      else chunks.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (errors.length < 2048) errors += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (length > maxBytes) reject(new Error(`${program} wrote more than ${maxBytes} bytes`));
      else if (code !== 0) reject(new Error(`${program} exited with ${code}: ${errors.trim().slice(0, 300)}`));
      else resolve(Buffer.concat(chunks));
    });
  });
}
