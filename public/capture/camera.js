// @ts-check
/** Live capture from the rear camera: a still from the stream, or a clip recorded with MediaRecorder. */

export async function openCamera(video, withAudio) {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 } }, audio: withAudio });
  video.srcObject = stream;
  video.muted = true;
  await video.play();
  return stream;
}

export function closeCamera(stream) {
  for (const track of stream?.getTracks() ?? []) track.stop();
}

export function trackSize(stream) {
  const settings = stream.getVideoTracks()[0]?.getSettings() ?? {};
  return { width: settings.width, height: settings.height };
}

export function still(video) {
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d")?.drawImage(video, 0, 0);
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no image"))), "image/jpeg", 0.92));
}

export function startRecording(stream) {
  const type = ["video/mp4", "video/webm"].find((candidate) => MediaRecorder.isTypeSupported(candidate)) ?? "video/webm";
  const recorder = new MediaRecorder(stream, { mimeType: type });
  const chunks = [];
  const started = performance.now();
  recorder.ondataavailable = (event) => chunks.push(event.data);
  recorder.start(1000);
  return () =>
    new Promise((resolve) => {
      recorder.onstop = () => resolve({ blob: new Blob(chunks, { type: type.split(";")[0] }), durationMs: Math.round(performance.now() - started) });
      recorder.stop();
    });
}
