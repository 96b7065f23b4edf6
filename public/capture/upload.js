// @ts-check
/** Hashing on the phone, declaring the file, then PUT straight to storage with progress and back-off. */

export async function sha256Hex(blob) {
  const digest = await crypto.subtle.digest("SHA-256", await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class HttpError extends Error {
  constructor(status, body) {
    super(body?.title || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function api(path, options = {}) {
  const response = await fetch(path, {
    method: options.method || "GET",
    headers: options.body === undefined ? {} : { "Content-Type": "application/json" },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) throw new HttpError(response.status, body);
  return body;
}

function put(part, blob, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(part.method, part.url);
    for (const [name, value] of Object.entries(part.headers || {})) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve(xhr.getResponseHeader("ETag")) : reject(new HttpError(xhr.status, null)));
    xhr.onerror = () => reject(new Error("network"));
    xhr.send(blob.slice(part.offset, part.offset + part.length));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Uploads one shot. Network errors are retried with exponential back-off and jitter (1 s … 30 s), and
 * wait for the browser to be back online; an expired URL is replaced by a fresh one.
 */
export async function uploadShot(base, shot, { onProgress, onRetry, onDeclared, onPartStored }) {
  if (!shot.fileId) {
    const declared = await api(`${base}/files`, {
      method: "POST",
      body: { step_id: shot.stepId, content_type: shot.blob.type, size: shot.blob.size, sha256: shot.sha256, capture: shot.capture },
    });
    shot.fileId = declared.file_id;
    shot.upload = declared.upload;
    shot.storedParts = {};
    // Kept at once: after a reload the shot resumes this declaration instead of declaring a second file.
    await onDeclared();
  }
  shot.storedParts ??= {};
  for (let attempt = 0; ; attempt++) {
    try {
      for (const part of shot.upload.parts) {
        // A part already stored is not sent again: a dropped connection resumes at the first missing part.
        if (shot.storedParts[part.part_number] !== undefined) {
          onProgress(part.offset + part.length);
          continue;
        }
        shot.storedParts[part.part_number] = (await put(part, shot.blob, (loaded) => onProgress(part.offset + loaded))) ?? "";
        await onPartStored();
      }
      if (shot.upload.complete) {
        const parts = Object.entries(shot.storedParts).filter(([, etag]) => etag).map(([number, etag]) => ({ part_number: Number(number), etag }));
        await api(shot.upload.complete.url, { method: "POST", body: { parts } });
      }
      return;
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) return; // already stored
      if (error instanceof HttpError && (error.status === 403 || error.status === 410)) {
        shot.upload = (await api(`${base}/files/${shot.fileId}/upload`, { method: "POST" })).upload;
        continue;
      }
      if (error instanceof HttpError && error.body?.code === "upload_incomplete" && attempt < 3) {
        // Storage does not hold what this phone believes it sent: send every part again.
        shot.storedParts = {};
        continue;
      }
      if (error instanceof HttpError && error.status < 500) throw error;
      if (!navigator.onLine) await new Promise((resolve) => window.addEventListener("online", resolve, { once: true }));
      const delay = Math.min(30_000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
      onRetry(Math.ceil(delay / 1000));
      await sleep(delay);
    }
  }
}
