// @ts-check
/**
 * Why a shot cannot be used, as a message key: checked on the phone before declaring (the same rules as
 * src/capture-page/media-rules.ts), and for the server's permanent refusals.
 */
/** @type {Record<import("./types.js").ShotKind, string[]>} */
const TYPES = { photo: ["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp"], video: ["video/mp4", "video/quicktime", "video/webm"] };
/** @type {Record<import("./types.js").ShotKind, number>} */
const MAX_BYTES = { photo: 25 * 1024 * 1024, video: 500 * 1024 * 1024 };
/** A recording shorter than this is a slip of the finger, not a take. */
export const MIN_RECORDING_MS = 1000;

/**
 * @param {import("./types.js").ShotKind} kind
 * @param {Blob} blob
 * @param {number | undefined} durationMs given for a recording
 * @returns {string | null}
 */
export function refusalOnPhone(kind, blob, durationMs) {
  if (blob.size === 0) return durationMs === undefined ? "refusedEmptyFile" : "refusedEmpty";
  if (durationMs !== undefined && durationMs < MIN_RECORDING_MS) return "refusedShort";
  const type = blob.type.split(";")[0];
  if (!TYPES[kind].includes(type ?? "")) return kind === "photo" ? "refusedTypePhoto" : "refusedTypeVideo";
  if (blob.size > MAX_BYTES[kind]) return kind === "photo" ? "refusedSizePhoto" : "refusedSizeVideo";
  return null;
}

/** The message for a refusal code the server gave. */
/**
 * @param {string | null} code
 * @param {import("./types.js").ShotKind} kind
 */
export function refusalOfCode(code, kind) {
  switch (code) {
    case "content_type_not_allowed":
      return kind === "photo" ? "refusedTypePhoto" : "refusedTypeVideo";
    case "file_too_large":
      return kind === "photo" ? "refusedSizePhoto" : "refusedSizeVideo";
    case "too_many_files":
      return "refusedTooMany";
    case "upload_checksum_mismatch":
    case "upload_size_mismatch":
    case "upload_incomplete":
      return "refusedDamaged";
    default:
      return "refusedOther";
  }
}
