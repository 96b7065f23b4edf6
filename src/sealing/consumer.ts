import type { WorkerContext } from "../domain/context.ts";
import { failProof, sealProof, type SealingDependencies } from "./seal-proof.ts";
import { sealingRetryDelay } from "./retry-schedule.ts";
import { callSealer } from "./sealer-client.ts";
import { loadProofForSealing } from "../storage/proof-sealing.ts";
import { issueDeleteUrl, issueDownloadUrl, issueUploadUrl } from "../storage/objects/signed-urls.ts";
import { publishEvents } from "../webhooks/publish-events.ts";
import { consumeReportMessages, isReportMessage, reportDependencies, requestReports } from "../reports/report-queue.ts";

export interface SealingMessage {
  proof_id: string;
}

/**
 * Seals each proof of the batch concurrently. A transient failure is retried with the schedule's delay;
 * once the budget is spent the proof fails (`sealing_unavailable`) and its live reservation is released.
 * `sealed`: told of each proof this batch sealed (its reports are asked for then, as steps of their own).
 */
export async function consumeSealingMessages(
  messages: readonly Message<unknown>[],
  deps: SealingDependencies,
  sealed: (proofId: string) => Promise<void> = async () => undefined,
): Promise<void> {
  await Promise.all(
    messages.map(async (message) => {
      const { proof_id: proofId } = message.body as SealingMessage;
      try {
        if ((await sealProof(deps, proofId)) === "sealed") await sealed(proofId).catch(() => undefined);
        message.ack();
      } catch (error) {
        const reason = (error as Error).message;
        const loaded = await loadProofForSealing(deps.db, proofId);
        // The budget is the proof's, not the message's: a message sent again by the stalled-sealing sweep
        // starts counting at 1, but the proof's own attempts keep counting.
        const attempts = Math.max(message.attempts, loaded?.proof.sealAttempts ?? 0);
        const delay = sealingRetryDelay(attempts);
        console.warn(JSON.stringify({ level: "warn", proof_id: proofId, attempt: attempts, retry_in: delay, reason }));
        if (delay !== null) {
          message.retry({ delaySeconds: delay });
          return;
        }
        if (loaded !== null) {
          await failProof(deps, loaded.proof, {
            code: "sealing_unavailable",
            message: "The proof could not be sealed: the sealing service or the timestamp authority stayed unavailable.",
          });
        }
        message.ack();
      }
    }),
  );
}

/**
 * The sealing queue carries seal jobs and, after a proof is sealed, its report jobs (docs/adr/0044): each goes to
 * its own consumer. `messages` are those of one shard, `worker` that shard's context (src/index.ts groups a batch). A report asked for but lost (the Worker died between) is made by the sweep.
 */
export function sealingQueueConsumer(dependencies: (worker: WorkerContext) => SealingDependencies) {
  return async (messages: readonly Message<unknown>[], worker: WorkerContext) => {
    const reports = messages.filter((message) => isReportMessage(message.body));
    const seals = messages.filter((message) => !isReportMessage(message.body));
    await Promise.all([
      seals.length === 0 ? undefined : consumeSealingMessages(seals, dependencies(worker), (proofId) => requestReports(worker.env.SEALING_QUEUE, proofId)),
      reports.length === 0 ? undefined : consumeReportMessages(reports, reportDependencies(worker)),
    ]);
  };
}

/** Long enough for the sealer to fetch and write large videos; a retry gets fresh URLs. */
const SEALER_URL_LIFETIME_SECONDS = 30 * 60;

/** What sealing needs, wired to the platform in one place: signed storage URLs, the sealer, webhook publication. */
export function sealingDependencies(worker: WorkerContext): SealingDependencies {
  const { env, db } = worker;
  return {
    db,
    objects: env,
    similarityIndexes: env,
    downloadUrl: async (key) => {
      const signed = await issueDownloadUrl(env, key, SEALER_URL_LIFETIME_SECONDS);
      return { url: signed.url, headers: signed.headers };
    },
    uploadUrl: async (key, contentType) => {
      const signed = await issueUploadUrl(env, { key, contentType, expiresInSeconds: SEALER_URL_LIFETIME_SECONDS });
      return { url: signed.url, method: signed.method, headers: signed.headers };
    },
    discardUrl: async (key) => {
      const signed = await issueDeleteUrl(env, key, SEALER_URL_LIFETIME_SECONDS);
      return { url: signed.url, method: signed.method, headers: signed.headers };
    },
    seal: (job) => callSealer(env, job),
    publishEvents: (eventIds) => publishEvents(worker, eventIds),
  };
}
