import type { IncomingMessage, ServerResponse } from "node:http";
import { parseProtocolMessage, SEALER_PROTOCOL_VERSION, sealerError, SealRequestSchema, type SealAnswer, type SealJob } from "../../shared/sealer-protocol.ts";
import { runSealJob, TransientJobError, type SealContext } from "./seal-job.ts";
import { JobAbortedError } from "./job-abort.ts";
import { TimestampUnavailableError } from "./tsa/authority.ts";
import { BodyTooLargeError, readBody, send } from "./http.ts";

const MAX_JOB_BYTES = 2 * 1024 * 1024;

/**
 * `POST /seal` (the caller is already authenticated): runs the job for as long as the Worker waits for
 * it. The Worker's disconnection aborts the job (see runSealJob): nobody would read its answer, and the
 * queue's retry starts another run, so this one must not keep memory, buy timestamps or leave copies.
 */
export async function serveSealJob(req: IncomingMessage, res: ServerResponse, contextFor: (mode: SealJob["proof"]["mode"]) => SealContext): Promise<void> {
  const job = await readJob(req, res);
  if (job === null) return;
  const caller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) caller.abort();
  });
  try {
    const answer: SealAnswer = { protocol_version: SEALER_PROTOCOL_VERSION, ...(await runSealJob(contextFor(job.proof.mode), job, caller.signal)) };
    return send(res, 200, answer);
  } catch (error) {
    if (error instanceof JobAbortedError) {
      console.warn(JSON.stringify({ level: "warn", proof_id: job.proof.id, message: `sealing aborted: ${error.message}` }));
      if (!res.destroyed) send(res, 503, sealerError("sealing_aborted", error.message));
      return;
    }
    if (error instanceof TransientJobError || error instanceof TimestampUnavailableError) {
      return send(res, 503, sealerError("sealing_unavailable", error.message));
    }
    throw error;
  }
}

/**
 * The job, parsed with the protocol's schema; or null once a refusal is sent. A job this sealer cannot
 * read is the Worker's bug or a version skew during a rollout: it is refused before anything runs.
 */
async function readJob(req: IncomingMessage, res: ServerResponse): Promise<SealJob | null> {
  let body: Buffer;
  try {
    body = await readBody(req, MAX_JOB_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    send(res, 413, sealerError("job_too_large", `The job is larger than ${MAX_JOB_BYTES} bytes.`));
    return null;
  }
  const parsed = parseProtocolMessage(SealRequestSchema, body.toString("utf8"));
  if (parsed.ok) return parsed.value;
  console.warn(JSON.stringify({ level: "warn", message: `job refused: ${parsed.problem}` }));
  send(res, 400, sealerError(parsed.wrongVersion ? "unsupported_protocol_version" : "invalid_job", `The job cannot be read: ${parsed.problem}.`));
  return null;
}
