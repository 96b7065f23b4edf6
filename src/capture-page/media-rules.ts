export const PHOTO_TYPES = ["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp"] as const;
export const VIDEO_TYPES = ["video/mp4", "video/quicktime", "video/webm"] as const;
export const MAX_PHOTO_BYTES = 25 * 1024 * 1024;
export const MAX_VIDEO_BYTES = 500 * 1024 * 1024;
/** How long an upload URL may be used; a page that needs longer asks for a fresh one. */
export const UPLOAD_URL_LIFETIME_SECONDS = 15 * 60;

export function allowedTypes(kind: "photo" | "video"): readonly string[] {
  return kind === "photo" ? PHOTO_TYPES : VIDEO_TYPES;
}

export function maxBytes(kind: "photo" | "video"): number {
  return kind === "photo" ? MAX_PHOTO_BYTES : MAX_VIDEO_BYTES;
}
