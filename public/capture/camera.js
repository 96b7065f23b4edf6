// @ts-check
/** Live capture from the rear camera: a still of exactly the frame shown, or a clip recorded with MediaRecorder. */
import { frameFault } from "./quality.js";

/**
 * @param {HTMLVideoElement} video
 * @param {boolean} withAudio
 */
export async function openCamera(video, withAudio) {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 } }, audio: withAudio });
  video.srcObject = stream;
  video.muted = true;
  // Ready once frames arrive: WebKit can keep play()'s promise pending well after the picture shows.
  try {
    await new Promise((resolve, reject) => {
      video.addEventListener("playing", resolve, { once: true });
      video.play().then(resolve, (/** @type {unknown} */ error) => (video.videoWidth > 0 ? resolve(undefined) : reject(error)));
    });
  } catch (error) {
    closeCamera(stream);
    throw error;
  }
  return stream;
}

/** @param {MediaStream | null} stream */
export function closeCamera(stream) {
  for (const track of stream?.getTracks() ?? []) track.stop();
}

/** How long a black still waits for the camera's next frame, and how many frames it tries, before it counts as black. */
const NEXT_FRAME_TIMEOUT_MS = 3000;
const BLACK_RETRIES = 3;

/**
 * The whole video frame: the viewfinder shows it whole too (object-fit: contain), so what is saved is
 * exactly what the person framed. With it, what is wrong with it, if anything (quality.js). A black copy is
 * taken again from the next frame: a camera warming up gives black frames, and WebKitGTK copies a frame it
 * has already handed out as black (seen with its mock camera, whose frames come slowly on a loaded machine).
 * @param {HTMLVideoElement} video
 * @returns {Promise<{ blob: Blob, width: number, height: number, fault: import("./quality.js").FrameFault | null }>}
 */
export async function still(video) {
  let copy = copyFrame(video);
  for (let retry = 0; copy.fault === "black" && retry < BLACK_RETRIES; retry++) {
    await nextFrame(video);
    copy = copyFrame(video);
  }
  return encode(copy);
}

/** @param {HTMLVideoElement} video */
function copyFrame(video) {
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d")?.drawImage(video, 0, 0);
  return { canvas, fault: frameFault(canvas, canvas.width, canvas.height) };
}

/**
 * @param {{ canvas: HTMLCanvasElement, fault: import("./quality.js").FrameFault | null }} copy
 * @returns {Promise<{ blob: Blob, width: number, height: number, fault: import("./quality.js").FrameFault | null }>}
 */
function encode({ canvas, fault }) {
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob && blob.size > 0 ? resolve({ blob, width: canvas.width, height: canvas.height, fault }) : reject(new Error("no image"))),
      "image/jpeg",
      0.92,
    ),
  );
}

/** @param {HTMLVideoElement} video */
function nextFrame(video) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, NEXT_FRAME_TIMEOUT_MS);
    if ("requestVideoFrameCallback" in video) video.requestVideoFrameCallback(() => (clearTimeout(timer), resolve(undefined)));
  });
}

export const canRecord = () => typeof MediaRecorder !== "undefined";

/**
 * Starts recording; the function it answers stops and gives the clip.
 * @param {MediaStream} stream
 * @returns {() => Promise<{ blob: Blob, durationMs: number }>}
 */
export function startRecording(stream) {
  const type = ["video/mp4", "video/webm"].find((candidate) => MediaRecorder.isTypeSupported(candidate)) ?? "";
  // A bit rate that keeps the longest clip (steps.js) far below the 500 MB a video may weigh.
  const options = { videoBitsPerSecond: 8_000_000 };
  const recorder = new MediaRecorder(stream, type ? { ...options, mimeType: type } : options);
  /** @type {Blob[]} */
  const chunks = [];
  const started = performance.now();
  recorder.ondataavailable = (event) => event.data.size > 0 && chunks.push(event.data);
  recorder.start(1000);
  return () =>
    new Promise((resolve) => {
      recorder.onstop = () => {
        const mime = (recorder.mimeType || type || "video/webm").split(";")[0];
        resolve({ blob: new Blob(chunks, { type: mime }), durationMs: Math.round(performance.now() - started) });
      };
      recorder.stop();
    });
}
