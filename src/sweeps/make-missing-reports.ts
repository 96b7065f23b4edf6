import type { WorkerContext } from "../domain/context.ts";
import { makeProofReport, type ReportDependencies } from "../reports/make-report.ts";
import { reportDependencies } from "../reports/report-queue.ts";
import { missingReports } from "../storage/proof-reports.ts";

/** The queue's own message has had its chance (four tries over about four minutes) before the sweep steps in. */
const GRACE_MS = 10 * 60_000;
/** Reports made per run: a few, one after another, so that a backlog never crowds the sealer's seal jobs. */
const REPORTS_PER_RUN = 3;

/**
 * Makes the reports that sealed proofs (and sealed afters, their pair's) still lack once the queue had its
 * chance: a report asked for when the Worker died, or whose tries all failed (docs/adr/0044). Making one is
 * idempotent, so a concurrent run or a late queue message costs at most one report made and then discarded.
 */
export async function makeMissingReports(worker: WorkerContext, now: Date, deps: ReportDependencies = reportDependencies(worker)): Promise<number> {
  const missing = await missingReports(worker.db.$client, new Date(now.getTime() - GRACE_MS).toISOString(), REPORTS_PER_RUN);
  let made = 0;
  for (const { proofId, kind } of missing) {
    try {
      if ((await makeProofReport(deps, proofId, kind)) === "made") made++;
    } catch (error) {
      console.warn(JSON.stringify({ level: "warn", sweep: "make-missing-reports", proof_id: proofId, report: kind, message: (error as Error).message }));
    }
  }
  return made;
}
