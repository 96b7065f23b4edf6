import type { IncomingMessage, ServerResponse } from "node:http";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { runSealJob, TransientJobError, type SealContext } from "./seal-job.ts";
import { JobAbortedError } from "./job-abort.ts";
import { TimestampUnavailableError } from "./tsa/authority.ts";
import { readBody, send } from "./http.ts";

const MAX_JOB_BYTES = 2 * 1024 * 1024;

/**
 * `POST /seal` (the caller is already authenticated): runs the job for as long as the Worker waits for
 * it. The Worker's disconnection aborts the job (see runSealJob): nobody would read its answer, and the
 * queue's retry starts another run, so this one must not keep memory, buy timestamps or leave copies.
 */
export async function serveSealJob(req: IncomingMessage, res: ServerResponse, contextFor: (mode: SealJob["proof"]["mode"]) => SealContext): Promise<void> {
  const job = JSON.parse((await readBody(req, MAX_JOB_BYTES)).toString("utf8")) as SealJob;
  const caller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) caller.abort();
  });
  try {
    return send(res, 200, await runSealJob(contextFor(job.proof.mode), job, caller.signal));
  } catch (error) {
    if (error instanceof JobAbortedError) {
      console.warn(JSON.stringify({ level: "warn", proof_id: job.proof.id, message: `sealing aborted: ${error.message}` }));
      if (!res.destroyed) send(res, 503, { code: "sealing_aborted", message: error.message });
      return;
    }
    if (error instanceof TransientJobError || error instanceof TimestampUnavailableError) {
      return send(res, 503, { code: "sealing_unavailable", message: error.message });
    }
    throw error;
  }
}
