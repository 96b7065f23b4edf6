// @ts-check
/** One shot's way to storage: hash on the phone, declare, PUT each part, assemble. All through the retry policy. */
import { api, HttpError, codeOf, putPart, retrying } from "./network.js";

/** @param {Blob} blob */
export async function sha256Hex(blob) {
  const digest = await crypto.subtle.digest("SHA-256", await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Uploads one shot; resolves once storage holds it, throws a permanent refusal (HttpError) or Aborted.
 * `hooks.onDeclared` and `hooks.onPartStored` let the page keep the declaration and each part's ETag, so a
 * reload resumes the same file at its first missing part.
 * @param {string} base
 * @param {import("./types.js").Shot} shot
 * @param {UploadHooks} hooks
 */
export async function uploadShot(base, shot, hooks) {
  const policy = { onWait: hooks.onWait, signal: hooks.signal };
  if (!shot.fileId) {
    const declared = await retrying(
      () =>
        api(`${base}/files`, {
          method: "POST",
          body: { step_id: shot.stepId, content_type: shot.blob.type, size: shot.blob.size, sha256: shot.sha256, capture: shot.capture },
        }),
      policy,
    );
    shot.fileId = declared.file_id;
    shot.upload = declared.upload;
    shot.storedParts = {};
    await hooks.onDeclared();
  }
  for (let resend = 0; ; resend++) {
    const stored = (shot.storedParts ??= {});
    try {
      for (const { part_number: number } of planOf(shot).parts) {
        // A part already stored is not sent again: a dropped connection resumes at the first missing part.
        if (stored[number] !== undefined) continue;
        stored[number] = await retrying(() => sendPart(base, shot, number, hooks), policy);
        await hooks.onPartStored();
      }
      const complete = planOf(shot).complete;
      if (complete) {
        const parts = Object.entries(stored)
          .filter(([, etag]) => etag)
          .map(([number, etag]) => ({ part_number: Number(number), etag }));
        await retrying(() => api(complete.url, { method: "POST", body: { parts } }), policy);
      }
      return;
    } catch (error) {
      // Storage does not hold what this phone believes it sent: send every part again (a few times).
      if (codeOf(error) !== "upload_incomplete" || resend >= 3) throw error;
      shot.storedParts = {};
    }
  }
}

/**
 * @typedef {object} UploadHooks
 * @property {AbortSignal} signal
 * @property {(seconds: number) => void} onWait
 * @property {(loaded: number) => void} onProgress bytes of the file stored so far
 * @property {() => unknown} onDeclared
 * @property {() => unknown} onPartStored
 */

/**
 * The shot's upload plan: set when it was declared, replaced when its URLs are renewed.
 * @param {import("./types.js").Shot} shot
 */
function planOf(shot) {
  if (!shot.upload) throw new Error("the shot has no upload plan");
  return shot.upload;
}

/**
 * Sends one part with the shot's current URLs; an expired or used-up URL is replaced and the part tried again.
 * @param {string} base
 * @param {import("./types.js").Shot} shot
 * @param {number} number
 * @param {UploadHooks} hooks
 */
async function sendPart(base, shot, number, hooks) {
  const plan = planOf(shot);
  const part = plan.parts.find((candidate) => candidate.part_number === number);
  if (!part) throw new Error(`part ${number} is not in the upload plan`);
  const before = plan.parts
    .filter((candidate) => candidate.part_number < number && shot.storedParts?.[candidate.part_number] !== undefined)
    .reduce((sum, candidate) => sum + candidate.length, 0);
  try {
    return await putPart(part, shot.blob, (loaded) => hooks.onProgress(before + loaded));
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    if (error.status === 409) return ""; // this URL already wrote the file: it is stored
    if (error.status !== 403 && error.status !== 410) throw error;
    shot.upload = (await api(`${base}/files/${shot.fileId}/upload`, { method: "POST" })).upload;
    throw new Error("upload URL renewed"); // transient: the policy sends the part again at once
  }
}
