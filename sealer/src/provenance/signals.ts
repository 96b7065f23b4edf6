import type { SealJobFile } from "../../../shared/sealer-protocol.ts";
import type { SEALER_SIGNAL_CODES } from "../../../shared/integrity-signals.ts";
import type { MediaFacts } from "./media-facts.ts";

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
