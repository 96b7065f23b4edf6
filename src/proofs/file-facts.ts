import type { FileRow } from "../storage/rows.ts";
import { isLikenessToEarlier, type StoredSignal } from "../../shared/integrity-signals.ts";

/**
 * A sealed file's facts in two kinds, never mixed (docs/adr/0018): what the service observed itself
 * (the bytes it received, their type as read from them, when, its own measure of the device's clock, the
 * capture page version it served, what it decoded) and what the device reported, named as reported. Both APIs and the verification report
 * present them from here.
 */
export function observedFacts(file: FileRow) {
  const offset = file.captureContext?.clock_offset_ms;
  const pageVersion = file.captureContext?.capture_page_version;
  return {
    sha256: file.sha256,
    size: file.size,
    content_type: file.sniffedType ?? file.contentType,
    received_at: file.capturedAt ?? file.createdAt,
    clock_offset_ms: typeof offset === "number" ? offset : null,
    capture_page_version: typeof pageVersion === "string" ? pageVersion : null,
    decoded: file.decoded ?? null,
  };
}

const reportedNumber = (value: unknown) => (typeof value === "number" ? value : null);

export function reportedByDevice(file: FileRow) {
  const reported = (file.captureContext ?? {}) as Record<string, unknown>;
  const geolocation = reported.geolocation as { latitude: number; longitude: number; accuracy_m: number } | undefined;
  return {
    method: reported.method === "camera" || reported.method === "file" ? (reported.method as "camera" | "file") : ("unknown" as const),
    device_time: typeof reported.device_time === "string" ? reported.device_time : null,
    width: reportedNumber(reported.width),
    height: reportedNumber(reported.height),
    duration_ms: reportedNumber(reported.duration_ms),
    geolocation: geolocation ?? null,
  };
}

/** The organization's own view: a `sealed_before`, `similar_to_earlier_photo` or `similar_to_earlier_video` names the earlier proof. */
export const privateSignals = (file: FileRow): StoredSignal[] => file.signals ?? [];

/**
 * Anyone's view: a `sealed_before` says only that the bytes were sealed before, a `similar_to_earlier_photo`
 * (`similar_to_earlier_video`) only that the file looks like a photo (a video) the same organization sealed earlier,
 * with the distance: never in which proof, step or when (docs/adr/0052, 0063).
 */
export const publicSignals = (file: FileRow): StoredSignal[] =>
  privateSignals(file).map((signal): StoredSignal => {
    if (signal.code === "sealed_before") return { code: signal.code, detail: "The same bytes were sealed before, in another proof." };
    if (isLikenessToEarlier(signal.code)) {
      const distance = signal.distance ?? null;
      const kind = signal.code === "similar_to_earlier_video" ? "video" : "photo";
      return {
        code: signal.code,
        detail: `Looks like a ${kind} sealed earlier by the same organization, in another proof${distance === null ? "" : `: ${distance} of 64 bits apart`}.`,
        ...(distance === null ? {} : { distance }),
      };
    }
    return signal;
  });
