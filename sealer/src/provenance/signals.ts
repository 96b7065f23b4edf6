import type { SealJobFile } from "../../../shared/sealer-protocol.ts";
import type { SEALER_SIGNAL_CODES } from "../../../shared/integrity-signals.ts";
import type { MediaFacts } from "./media-facts.ts";
import type { PixelFacts } from "./fingerprint.ts";

export interface Signal {
  code: (typeof SEALER_SIGNAL_CODES)[number];
  detail: string;
}

export type PriorState = "none" | "readable" | "unreadable";

/** Beyond this, the device's clock or the file's original date is "far" from ours. */
const DEVICE_TIME_TOLERANCE_MS = 10 * 60 * 1000;
/**
 * EXIF dates carry no time zone: read as UTC, a local time is off by its zone, at most 14 h (UTC+14) and
 * 12 h the other way; an hour more for the upload. Beyond that the date is not this capture's.
 */
const EXIF_DATE_TOLERANCE_MS = 15 * 60 * 60 * 1000;

/** What the capture page's camera produces: a canvas JPEG for a photo, MediaRecorder's MP4 or WebM for a video. */
const CAPTURE_PAGE_CAMERA_TYPES: Record<SealJobFile["kind"], readonly string[]> = { photo: ["image/jpeg"], video: ["video/mp4", "video/webm"] };
const DURATION_TOLERANCE_MS = 1000;

/** What the device reported about one shot (the capture context minus what the server measured). */
export interface ReportedCapture {
  method?: string;
  device_time?: string;
  width?: number;
  height?: number;
  duration_ms?: number;
  geolocation?: { latitude: number; longitude: number; accuracy_m: number };
}

/** The capture context minus what the Worker measured itself (clock offset, capture page version). */
export const reportedCapture = (file: SealJobFile): ReportedCapture => {
  const {
    clock_offset_ms: _offset,
    capture_page_version: _version,
    ...reported
  } = (file.capture_context ?? {}) as ReportedCapture & {
    clock_offset_ms?: unknown;
    capture_page_version?: unknown;
  };
  return reported;
};

/** EXIF "YYYY:MM:DD HH:MM:SS" read as if UTC (the tolerance absorbs the unknown zone). */
const exifInstant = (value: string) => Date.parse(`${value.replace(/^(\d{4}):(\d{2}):(\d{2}) /, "$1-$2-$3T")}Z`);

/**
 * The signals the bytes and the report give about one file. `sniffedType`: its type read from the bytes;
 * `prior`: whether it carries earlier Content Credentials, and whether c2pa-rs could read them. Every
 * comparison is between a reported value and one the sealer decoded or measured.
 */
export function fileSignals(file: SealJobFile, sniffedType: string, facts: MediaFacts, prior: PriorState): Signal[] {
  const reported = reportedCapture(file);
  const signals: Signal[] = [];
  if (prior === "readable") signals.push({ code: "prior_content_credentials", detail: "The file came with C2PA Content Credentials of its own." });
  if (prior === "unreadable") {
    signals.push({ code: "prior_content_credentials_unreadable", detail: "The file carries a C2PA block that cannot be read (damaged or forged)." });
  }
  if (reported.method === "camera" && facts.exif && (facts.exif.make || facts.exif.model)) {
    signals.push({ code: "camera_shot_has_camera_exif", detail: `EXIF names ${[facts.exif.make, facts.exif.model].filter(Boolean).join(" ")}.` });
  }
  const original = facts.exif?.date_time_original ? exifInstant(facts.exif.date_time_original) : Number.NaN;
  if (reported.method === "camera" && !Number.isNaN(original) && Math.abs(original - Date.parse(file.captured_at)) > EXIF_DATE_TOLERANCE_MS) {
    signals.push({ code: "camera_shot_original_date_far", detail: `EXIF original date ${facts.exif?.date_time_original}, received ${file.captured_at}.` });
  }
  if (reported.method === "camera" && !CAPTURE_PAGE_CAMERA_TYPES[file.kind].includes(sniffedType)) {
    signals.push({
      code: "camera_shot_format_not_from_capture_page",
      detail: `A ${file.kind} in ${sniffedType}; the capture page's camera makes ${CAPTURE_PAGE_CAMERA_TYPES[file.kind].join(" or ")}.`,
    });
  }
  if (reported.width !== undefined && reported.height !== undefined && facts.width !== null && facts.height !== null) {
    // A rotated shot may be reported in display orientation: either order matches.
    const same = (reported.width === facts.width && reported.height === facts.height) || (reported.width === facts.height && reported.height === facts.width);
    if (!same) signals.push({ code: "dimensions_mismatch", detail: `Reported ${reported.width}×${reported.height}, decoded ${facts.width}×${facts.height}.` });
  }
  if (
    reported.duration_ms !== undefined &&
    facts.duration_ms !== null &&
    Math.abs(reported.duration_ms - facts.duration_ms) > Math.max(DURATION_TOLERANCE_MS, facts.duration_ms * 0.05)
  ) {
    signals.push({ code: "duration_mismatch", detail: `Reported ${reported.duration_ms} ms, decoded ${facts.duration_ms} ms.` });
  }
  const offset = (file.capture_context as { clock_offset_ms?: unknown } | null)?.clock_offset_ms;
  if (typeof offset === "number" && Math.abs(offset) > DEVICE_TIME_TOLERANCE_MS) {
    signals.push({ code: "device_time_far", detail: `The device's clock was ${Math.round(offset / 1000)} s behind ours (negative: ahead).` });
  }
  if (reported.geolocation && reported.geolocation.accuracy_m <= 0) {
    signals.push({ code: "location_accuracy_zero", detail: "The reported location claims an accuracy of 0 m." });
  }
  return signals;
}

/**
 * Below this luminance spread (standard deviation, 0-255, over a 64×64 reduction) a frame is near-uniform.
 * Measured (docs/adr/0041): a covered lens or a flat grey JPEG stays under 2; the sample photographs and
 * synthetic scenes here are all over 20.
 */
export const BLANK_FRAME_MAX_SPREAD = 4;
/**
 * Below this many bytes per decoded pixel, a photo of at least a megapixel weighs far less than a camera's
 * (measured: phone JPEGs and the capture page's canvas JPEGs at quality 0.92 weigh 0.15-0.6 bytes per pixel;
 * a 400 px picture enlarged to 2000 px weighs about 0.03).
 */
export const MIN_BYTES_PER_PIXEL = 0.05;
const MIN_PIXELS_FOR_SIZE_CHECK = 1_000_000;

/**
 * The signals of a photo's decoded pixels (`pixels` null: not decoded here, so none). The weight is measured
 * against the larger of the size the device declared and the decoded one: a file declared 4000×3000 that
 * weighs as little as a thumbnail, or a small picture enlarged, both weigh far less than a camera's photo.
 */
export function pixelSignals(file: SealJobFile, facts: MediaFacts, pixels: PixelFacts | null): Signal[] {
  if (file.kind !== "photo" || pixels === null) return [];
  if (pixels.luminance_spread < BLANK_FRAME_MAX_SPREAD) {
    // A uniform frame also compresses to almost nothing: the size signal would only repeat it.
    return [{ code: "blank_frame", detail: `Luminance spread ${pixels.luminance_spread.toFixed(1)} of 255 over the decoded frame.` }];
  }
  const reported = reportedCapture(file);
  const sizes = [
    { width: facts.width ?? 0, height: facts.height ?? 0, source: "decoded" },
    { width: reported.width ?? 0, height: reported.height ?? 0, source: "declared" },
  ];
  const largest = sizes.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  const pixelCount = largest.width * largest.height;
  if (pixelCount < MIN_PIXELS_FOR_SIZE_CHECK) return [];
  const bytesPerPixel = file.size / pixelCount;
  if (bytesPerPixel >= MIN_BYTES_PER_PIXEL) return [];
  return [
    {
      code: "image_smaller_than_declared",
      detail: `${file.size} bytes for ${largest.width}×${largest.height} pixels (${largest.source}): ${bytesPerPixel.toFixed(3)} bytes per pixel, where a camera's photo weighs at least ${MIN_BYTES_PER_PIXEL}.`,
    },
  ];
}
