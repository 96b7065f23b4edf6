import type { WorkerContext } from "../domain/context.ts";
import { makeProofReport, type ReportDependencies } from "../reports/make-report.ts";
import { reportDependencies } from "../reports/report-queue.ts";
import { missingReports } from "../storage/proof-reports.ts";

/** The queue's own message has had its chance (four tries over about four minutes) before the sweep steps in. */
const GRACE_MS = 10 * 60_000;
/** Reports made per run: a few, one after another, so that a backlog never crowds the sealer's seal jobs. */
const REPORTS_PER_RUN = 3;
/**
 * Reports looked at per run: a proof whose record cannot be read asks nothing of the sealer and gives its turn to the
 * next, so that a few such proofs, the longest missing, never hold up every other report until the re-hash finds them.
 */
const CANDIDATES_PER_RUN = 12;

/**
 * Makes the reports that sealed proofs (and sealed afters, their pair's) still lack once the queue had its
 * chance: a report asked for when the Worker died, or whose tries all failed (docs/adr/0044). Making one is
 * idempotent, so a concurrent run or a late queue message costs at most one report made and then discarded.
 */
export async function makeMissingReports(worker: WorkerContext, now: Date, deps: ReportDependencies = reportDependencies(worker)): Promise<number> {
  const missing = await missingReports(worker.db.$client, new Date(now.getTime() - GRACE_MS).toISOString(), CANDIDATES_PER_RUN);
  let made = 0;
  let tried = 0;
  for (const { proofId, kind } of missing) {
    if (tried === REPORTS_PER_RUN) break;
    try {
      const outcome = await makeProofReport(deps, proofId, kind);
      if (outcome === "made") made++;
      if (outcome !== "record_unavailable") tried++;
    } catch (error) {
      tried++;
      console.warn(JSON.stringify({ level: "warn", sweep: "make-missing-reports", proof_id: proofId, report: kind, message: (error as Error).message }));
    }
  }
  return made;
}
