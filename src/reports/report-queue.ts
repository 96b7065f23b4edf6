import type { WorkerContext } from "../domain/context.ts";
import { sendInBatches } from "../lib/batches.ts";
import { issueDownloadUrl } from "../storage/objects/signed-urls.ts";
import type { ReportKind } from "../storage/proof-reports.ts";
import { makeProofReport, type ReportDependencies } from "./make-report.ts";
import { callReportSealer } from "./report-sealer.ts";

/**
 * A report to make, on the sealing queue beside the seal jobs (a step of its own after the seal, so that its
 * time never adds to the seal job's): the proof's own, and for an after its pair's (docs/adr/0044).
 */
export interface ReportMessage {
  report: ReportKind;
  proof_id: string;
}

export const isReportMessage = (body: unknown): body is ReportMessage =>
  typeof body === "object" && body !== null && "report" in body && (body.report === "proof" || body.report === "pair");

/**
 * Asks for the reports of a proof just sealed: its own, and its pair's (made only when it is an after whose
 * before is sealed, which it always is). A message lost here is made by the sweep (src/sweeps/make-missing-reports.ts).
 */
export async function requestReports(queue: Queue, proofId: string): Promise<void> {
  await sendInBatches(queue, [
    { report: "proof", proof_id: proofId },
    { report: "pair", proof_id: proofId },
  ] satisfies ReportMessage[]);
}

/**
 * A report that failed (the sealer busy or restarting, storage slow) is tried again soon, then less often;
 * past these the sweep makes it (src/sweeps/make-missing-reports.ts, after its grace).
 */
const RETRY_DELAYS_SECONDS = [20, 60, 180];

export async function consumeReportMessages(messages: readonly Message<unknown>[], deps: ReportDependencies): Promise<void> {
  await Promise.all(
    messages.map(async (message) => {
      const { report, proof_id: proofId } = message.body as ReportMessage;
      try {
        await makeProofReport(deps, proofId, report);
        message.ack();
      } catch (error) {
        console.warn(
          JSON.stringify({ level: "warn", proof_id: proofId, report, attempt: message.attempts, message: `report not made: ${(error as Error).message}` }),
        );
        const delay = RETRY_DELAYS_SECONDS[message.attempts - 1];
        if (delay === undefined) message.ack();
        else message.retry({ delaySeconds: delay });
      }
    }),
  );
}

/** Long enough for the sealer to fetch ten large photos; a retry gets fresh URLs. */
const PICTURE_URL_LIFETIME_SECONDS = 10 * 60;

/** What making a report needs, wired to the platform: signed URLs to the photos, the sealer. */
export function reportDependencies({ env, db }: WorkerContext): ReportDependencies {
  return {
    env,
    db,
    pictureUrl: async (key) => {
      const signed = await issueDownloadUrl(env, key, PICTURE_URL_LIFETIME_SECONDS);
      return { url: signed.url, headers: signed.headers };
    },
    makePdf: (job) => callReportSealer(env, job),
  };
}
