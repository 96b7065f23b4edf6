import type { IncomingMessage, ServerResponse } from "node:http";
import { type ReportJob, ReportRequestSchema } from "../../../shared/report-protocol.ts";
import { parseProtocolMessage, sealerError } from "../../../shared/sealer-protocol.ts";
import { BodyTooLargeError, readBody } from "../http.ts";
import { send } from "../http.ts";
import { JobAbortedError } from "../job-abort.ts";
import type { PdfSealContext } from "../pdf-seal/index.ts";
import { TransientJobError } from "../transfer.ts";
import { TimestampUnavailableError } from "../tsa/authority.ts";
import { makeReport } from "./make-report.ts";

/** A job names its files and carries three small artifacts per proof (a few kB each): far under this. */
const MAX_JOB_BYTES = 2 * 1024 * 1024;

/**
 * `POST /report` (the caller is already authenticated): the sealed PDF report of the job's proof or pair,
 * answered as `application/pdf` with its timings in `Report-Timings` (JSON). A job this sealer cannot read is
 * refused (400/413) before anything runs; storage or the authority out of reach, or the Worker gone, is a 503
 * the Worker retries.
 */
export async function serveReportJob(
  req: IncomingMessage,
  res: ServerResponse,
  contextFor: (mode: ReportJob["proofs"][number]["mode"]) => Omit<PdfSealContext, "signal">,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(req, MAX_JOB_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    return send(res, 413, sealerError("job_too_large", `The job is larger than ${MAX_JOB_BYTES} bytes.`));
  }
  const parsed = parseProtocolMessage(ReportRequestSchema, body.toString("utf8"));
  if (!parsed.ok)
    return send(res, 400, sealerError(parsed.wrongVersion ? "unsupported_protocol_version" : "invalid_job", `The job cannot be read: ${parsed.problem}.`));
  const { protocol_version: _version, ...job } = parsed.value;
  const caller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) caller.abort();
  });
  try {
    const { pdf, timings } = await makeReport(contextFor(job.proofs[0]!.mode), job, caller.signal);
    res.writeHead(200, { "Content-Type": "application/pdf", "Content-Length": pdf.length, "Report-Timings": JSON.stringify(timings) });
    res.end(pdf);
  } catch (error) {
    if (error instanceof JobAbortedError) {
      if (!res.destroyed) send(res, 503, sealerError("sealing_aborted", error.message));
      return;
    }
    if (error instanceof TransientJobError || error instanceof TimestampUnavailableError)
      return send(res, 503, sealerError("sealing_unavailable", error.message));
    throw error;
  }
}
