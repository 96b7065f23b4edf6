// @ts-check
/** Live capture from the rear camera: a still of exactly the frame shown, or a clip recorded with MediaRecorder. */

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

/**
 * The whole video frame: the viewfinder shows it whole too (object-fit: contain), so what is saved is
 * exactly what the person framed.
 */
/**
 * @param {HTMLVideoElement} video
 * @returns {Promise<{ blob: Blob, width: number, height: number }>}
 */
export function still(video) {
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d")?.drawImage(video, 0, 0);
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob && blob.size > 0 ? resolve({ blob, width: canvas.width, height: canvas.height }) : reject(new Error("no image"))),
      "image/jpeg",
      0.92,
    ),
  );
}

export const canRecord = () => typeof MediaRecorder !== "undefined";

/**
 * Starts recording; the function it answers stops and gives the clip.
 * @param {MediaStream} stream
 * @returns {() => Promise<{ blob: Blob, durationMs: number }>}
 */
export function startRecording(stream) {
  const type = ["video/mp4", "video/webm"].find((candidate) => MediaRecorder.isTypeSupported(candidate)) ?? "";
  const recorder = type ? new MediaRecorder(stream, { mimeType: type }) : new MediaRecorder(stream);
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
