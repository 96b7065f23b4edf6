import type { Env } from "../env.ts";
import type { Database } from "../db/client.ts";
import type { ReportJob } from "../../shared/report-protocol.ts";
import { newId } from "../lib/ids.ts";
import { nowIso } from "../lib/time.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { reportKey } from "../storage/objects/bucket.ts";
import { discardReport, storeReport } from "../storage/objects/reports.ts";
import { indexHashes } from "../storage/objects/hash-index.ts";
import { findProofReport, recordProofReport, type ReportKind } from "../storage/proof-reports.ts";
import { SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";
import { buildReportJob, type ReportSubject, reportSubject } from "./report-job.ts";
import { REPORT_TIMEOUT_MS } from "./report-sealer.ts";

export interface ReportDependencies {
  env: Env;
  db: Database;
  /** A short-lived URL the sealer reads a signed photo from. */
  pictureUrl(key: string): Promise<{ url: string; headers?: Record<string, string> }>;
  /** The sealer's sealed PDF of the job. */
  makePdf(job: ReportJob): Promise<Uint8Array>;
}

/** `record_unavailable`: a proof's sealed record cannot be read (docs/adr/0068), so no report is made of it. */
export type ReportOutcome = "made" | "already_made" | "not_ready" | "record_unavailable";

/**
 * Makes and keeps the report of `kind` for `proofId` (docs/adr/0044): nothing when it exists or cannot be made
 * yet (the proof, or the pair's after, not sealed); else the sealer makes it, it is stored under this run's own
 * key and recorded, the first run recorded winning. Safe to run twice, even at once (a queue redelivery, the
 * sweep): a run that lost deletes its object, so a proof never shows two reports and a stored one never
 * changes. A failure throws for the queue or the next sweep to retry; nothing half-made is served. A proof (or a
 * pair's other proof) whose sealed record cannot be read is no such failure: retrying cannot restore it, and a report
 * never lists fewer files than were sealed. It is `record_unavailable`, said on the log (`report_not_made`); the queue
 * acknowledges it, and the sweep leaves it while the re-hash's finding of that record is open (missingReports).
 */
export async function makeProofReport(deps: ReportDependencies, proofId: string, kind: ReportKind): Promise<ReportOutcome> {
  const subject = await readableSubject(deps, proofId, kind);
  if (subject === "record_unavailable") return subject;
  if (subject === null) return "not_ready";
  if ((await findProofReport(deps.db, subject.holder.id, kind)) !== null) return "already_made";
  const job = await buildReportJob(deps.env, deps.db, subject, deps.pictureUrl, new Date(Date.now() + REPORT_TIMEOUT_MS));
  const pdf = await deps.makePdf(job);
  const key = reportKey(subject.holder.id, kind, newId("run"));
  await storeReport(deps.env, key, pdf);
  const sha256 = await sha256Hex(pdf);
  // Verify-by-hash finds the report without asking every shard (docs/adr/0062): indexed before it is recorded.
  await indexHashes(deps.env, subject.holder.id, [sha256]);
  const recorded = await recordProofReport(deps.db, {
    proofId: subject.holder.id,
    kind,
    objectKey: key,
    sha256,
    size: pdf.length,
    language: job.language,
    madeAt: nowIso(),
  });
  if (recorded) return "made";
  await discardReport(deps.env, key);
  return "already_made";
}

/** The report's subject, or `record_unavailable` (said on the log) when a sealed record it needs cannot be read. */
async function readableSubject(deps: ReportDependencies, proofId: string, kind: ReportKind): Promise<ReportSubject | null | "record_unavailable"> {
  try {
    return await reportSubject(deps.db, deps.env, proofId, kind);
  } catch (error) {
    if (!(error instanceof SealedRecordUnavailable)) throw error;
    console.warn(
      JSON.stringify({
        level: "warn",
        message: "report_not_made",
        proof_id: proofId,
        report: kind,
        reason: `sealed_record_${error.fault}`,
        record_of: error.proofId,
      }),
    );
    return "record_unavailable";
  }
}
