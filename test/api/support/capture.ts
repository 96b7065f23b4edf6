import { call, callJson, CAPTURE } from "./client.ts";
import { sha256Hex } from "../../../src/lib/crypto.ts";

export function tokenOf(captureUrl: string): string {
  return captureUrl.slice(`${CAPTURE}/c/`.length);
}

export function captureCall(token: string, path: string, options: { method?: string; body?: unknown } = {}) {
  return callJson(`${CAPTURE}/c/${token}${path}`, options);
}

export async function randomJpeg(size = 512): Promise<{ bytes: Uint8Array; sha256: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(size));
  bytes.set([0xff, 0xd8, 0xff, 0xe0], 0);
  return { bytes, sha256: await sha256Hex(bytes) };
}

/** Declares a random JPEG as the page does, before uploading it: its file id, its upload part and its bytes. */
export async function declarePhoto(token: string, stepId = "photos") {
  const photo = await randomJpeg();
  const declared = await captureCall(token, "/files", {
    body: {
      step_id: stepId,
      content_type: "image/jpeg",
      size: photo.bytes.length,
      sha256: photo.sha256,
      capture: { method: "camera", device_time: new Date().toISOString(), width: 4032, height: 3024 },
    },
  });
  if (declared.status !== 201) throw new Error(`declare: ${JSON.stringify(declared.body)}`);
  const part = declared.body.upload.parts[0];
  return { fileId: declared.body.file_id as string, ...photo, part };
}

/** Declares a photo and uploads it through the signed URL, as the page does. */
export async function uploadPhoto(token: string, stepId = "photos") {
  const declared = await declarePhoto(token, stepId);
  const put = await call(declared.part.url, {
    method: "PUT",
    rawBody: declared.bytes as unknown as string,
    headers: { ...declared.part.headers, "Content-Length": String(declared.bytes.length) },
  });
  await put.body?.cancel();
  if (put.status !== 200) throw new Error(`upload: ${put.status}`);
  return declared;
}
