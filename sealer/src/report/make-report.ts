import type { ReportJob } from "../../../shared/report-protocol.ts";
import { jobSignal } from "../job-abort.ts";
import { type PdfSealContext, sealPdf } from "../pdf-seal/index.ts";
import { reportPictures } from "./pictures.ts";
import { renderReport } from "./render-report.ts";

/** Where a report's time went, for the Worker's log and the bench (docs/adr/0044). */
export interface ReportTimings {
  pictures_ms: number;
  layout_ms: number;
  seal_ms: number;
}

/**
 * A proof's (or a pair's) sealed PDF evidence report: its photos fetched from their signed copies and
 * resized, the unsigned report laid out (render-report.ts), then sealed as PAdES B-LTA by the proof's
 * sealing identity with the proof's authority (sealer/src/pdf-seal/). Runs while the Worker waits: its
 * disconnection or the job's deadline stops it (JobAbortedError) before any further timestamp is asked.
 */
export async function makeReport(
  context: Omit<PdfSealContext, "signal">,
  job: ReportJob,
  caller?: AbortSignal,
): Promise<{ pdf: Uint8Array; timings: ReportTimings }> {
  const { signal, dispose } = jobSignal(job.deadline, caller);
  try {
    const started = performance.now();
    const pictures = await reportPictures(
      job.proofs.flatMap((proof) => proof.files),
      signal,
    );
    const drawn = performance.now();
    const unsigned = await renderReport(job, pictures, new Date());
    signal.throwIfAborted();
    const laidOut = performance.now();
    const pdf = await sealPdf(unsigned, { ...context, signal });
    signal.throwIfAborted();
    return { pdf, timings: { pictures_ms: drawn - started, layout_ms: laidOut - drawn, seal_ms: performance.now() - laidOut } };
  } finally {
    dispose();
  }
}
