import type { SealJobFile } from "../../shared/sealer-protocol.ts";
import { FileRejectedError } from "./verify-file.ts";

/** Storage or the network failed in a way that may pass: the Worker retries the whole job later. */
export class TransientJobError extends Error {}

const TRANSFER_TIMEOUT_MS = 120_000;

/** The transfer's own time limit, ended early when the job is aborted. */
const transferSignal = (job: AbortSignal) => AbortSignal.any([job, AbortSignal.timeout(TRANSFER_TIMEOUT_MS)]);

/** A failed request: the job's abort reason when it was aborted, else a transient storage failure. */
function unreachable(error: unknown, job: AbortSignal): unknown {
  if (job.aborted) return job.reason;
  return new TransientJobError(`storage unreachable: ${(error as Error).message}`);
}

/** Reads the original through its signed URL. */
export async function download(file: SealJobFile, signal: AbortSignal): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(file.source.url, { headers: file.source.headers, signal: transferSignal(signal) });
  } catch (error) {
    throw unreachable(error, signal);
  }
  if (response.status === 404) throw new FileRejectedError("file_missing", file.id, "The file is not in storage.");
  if (!response.ok) throw new TransientJobError(`storage answered ${response.status} for ${file.id}`);
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw unreachable(error, signal);
  }
}

type SignedRequest = SealJobFile["destination"];

/** Writes the signed copy through its signed URL. */
export const upload = (file: SealJobFile, bytes: Uint8Array, signal: AbortSignal) => put(file.destination, bytes, signal, `the signed copy of ${file.id}`);

/** Writes bytes through a signed URL; `what` names them in the error. */
export async function put(destination: SignedRequest, bytes: Uint8Array, signal: AbortSignal, what: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(destination.url, {
      method: destination.method,
      headers: { ...destination.headers, "Content-Length": String(bytes.length) },
      body: Buffer.from(bytes),
      signal: transferSignal(signal),
    });
  } catch (error) {
    throw unreachable(error, signal);
  }
  await response.body?.cancel();
  if (!response.ok) throw new TransientJobError(`storage refused ${what} (${response.status})`);
}

/**
 * Deletes a signed copy this job may have written, and its thumbnail (deleting a missing object
 * succeeds). Best effort and never thrown: it runs while the job already ends in an error, which must
 * stay the one reported.
 */
export async function discard(file: SealJobFile): Promise<void> {
  await Promise.all([
    remove(file.discard, `the signed copy of ${file.id}`),
    ...(file.thumbnail ? [remove(file.thumbnail.discard, `the thumbnail of ${file.id}`)] : []),
  ]);
}

async function remove(request: SignedRequest, what: string): Promise<void> {
  try {
    const response = await fetch(request.url, { method: request.method, headers: request.headers, signal: AbortSignal.timeout(30_000) });
    await response.body?.cancel();
    if (!response.ok && response.status !== 404) throw new Error(`storage answered ${response.status}`);
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", message: `could not discard ${what}: ${(error as Error).message}` }));
  }
}
