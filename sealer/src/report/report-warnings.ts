import type { ReportFile, ReportJob, ReportProof } from "../../../shared/report-protocol.ts";
import type { ReportMessages } from "./report-messages.ts";

/** One line of the warning summary: what to weigh, and which files of which proof it concerns ("" when all). */
export interface ReportWarning {
  text: string;
  files: string;
}

/** Below a minute the device's clock is as good as a phone's; the signal `device_time_far` takes over from far. */
const CLOCK_OFFSET_WORTH_SAYING_MS = 60_000;

/** "Photo 2, 5", or for a pair "After: photo 2, 5", in the report's words. */
export function fileNames(proof: ReportProof, files: ReportFile[], m: ReportMessages, pair: boolean): string {
  if (files.length === 0) return "";
  const byKind = (kind: ReportFile["kind"]) => files.filter((file) => file.kind === kind).map((file) => file.number);
  const parts = (["photo", "video"] as const).flatMap((kind) => {
    const numbers = byKind(kind);
    return numbers.length === 0 ? [] : [`${m[kind]} ${numbers.join(", ")}`];
  });
  const side = pair ? `${proof.side === "before" ? m.before : m.after}${m.colon}` : "";
  return `${side}${parts.join("; ")}`;
}

/** A duration as minutes and seconds ("3 min 20 s"), or hours and minutes past an hour. */
export function readableOffset(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${seconds} s`;
}

/**
 * The summary at the top of the report: test mode first, then each signal raised (its sentence once, with the
 * files that carry it), files from the device's gallery, a device clock the service measured far from its own.
 * Nothing here is a verdict; each line is a fact the service measured or the phone reported, named as such.
 * What is only reported is said after them in every report (render-report.ts).
 */
export function reportWarnings(job: ReportJob, m: ReportMessages): ReportWarning[] {
  const pair = job.kind === "pair";
  // One line per kind of warning, a pair's two sides named together on it ("Before: Photo 2; After: Photo 2").
  const lines = new Map<string, { text: string; files: string[] }>();
  const warn = (key: string, text: string, files: string) => {
    const line = lines.get(key) ?? { text, files: [] };
    line.files.push(files);
    lines.set(key, line);
  };
  for (const proof of job.proofs) {
    const bySignal = new Map<string, { sentence: string; files: ReportFile[] }>();
    for (const file of proof.files) {
      for (const signal of file.signals) {
        const entry = bySignal.get(signal.code) ?? { sentence: signal.sentence, files: [] };
        if (!entry.files.includes(file)) entry.files.push(file);
        bySignal.set(signal.code, entry);
      }
    }
    for (const [code, { sentence, files }] of bySignal) {
      // The same bytes as a photo of the pair's other proof (a reused photo): named beside each file.
      const other = pair && code === "sealed_before" ? job.proofs.find((candidate) => candidate !== proof) : undefined;
      const twins = other === undefined ? [] : files.map((file) => other.files.find((candidate) => candidate.sha256 === file.sha256));
      const named = twins.some((twin) => twin !== undefined)
        ? files
            .map((file, i) => {
              const twin = twins[i];
              const name = fileNames(proof, [file], m, pair);
              return twin === undefined ? name : `${name}, ${m.sameBytesAs.replace("{file}", fileNames(other!, [twin], m, pair))}`;
            })
            .join("; ")
        : fileNames(proof, files, m, pair);
      warn(`signal:${code}`, sentence, named);
    }
    const gallery = proof.files.filter((file) => file.reported.method === "file");
    if (gallery.length > 0) warn("gallery", m.warningGallery, fileNames(proof, gallery, m, pair));
    const farClock = proof.files.filter(
      (file) =>
        file.clock_offset_ms !== null &&
        Math.abs(file.clock_offset_ms) >= CLOCK_OFFSET_WORTH_SAYING_MS &&
        !file.signals.some((signal) => signal.code === "device_time_far"),
    );
    if (farClock.length > 0) {
      const largest = Math.max(...farClock.map((file) => Math.abs(file.clock_offset_ms!)));
      const text = m.warningClock.replace("{offset}", readableOffset(largest));
      warn(`clock:${text}`, text, fileNames(proof, farClock, m, pair));
    }
  }
  const test = job.proofs.some((proof) => proof.mode === "test") ? [{ text: m.warningTest, files: "" }] : [];
  return [...test, ...[...lines.values()].map((line) => ({ text: line.text, files: line.files.join("; ") }))];
}
