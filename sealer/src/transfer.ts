import type { SealJobFile } from "../../shared/sealer-protocol.ts";
import { FileRejectedError } from "./verify-file.ts";
import { storageGet, storageSend } from "./storage-request.ts";

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
  let response: Awaited<ReturnType<typeof storageGet>>;
  try {
    response = await storageGet(file.source.url, file.source.headers, transferSignal(signal));
  } catch (error) {
    throw unreachable(error, signal);
  }
  if (response.status === 404) throw new FileRejectedError("file_missing", file.id, "The file is not in storage.");
  if (response.status < 200 || response.status > 299) throw new TransientJobError(`storage answered ${response.status} for ${file.id}`);
  return response.body;
}

type SignedRequest = SealJobFile["destination"];

/** Writes the signed copy through its signed URL. */
export const upload = (file: SealJobFile, bytes: Uint8Array, signal: AbortSignal) => put(file.destination, bytes, signal, `the signed copy of ${file.id}`);

/** Writes bytes through a signed URL; `what` names them in the error. */
export async function put(destination: SignedRequest, bytes: Uint8Array, signal: AbortSignal, what: string): Promise<void> {
  let status: number;
  try {
    status = await storageSend(destination.url, destination.method, destination.headers, bytes, transferSignal(signal));
  } catch (error) {
    throw unreachable(error, signal);
  }
  if (status < 200 || status > 299) throw new TransientJobError(`storage refused ${what} (${status})`);
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
    const status = await storageSend(request.url, request.method, request.headers, null, AbortSignal.timeout(30_000));
    if ((status < 200 || status > 299) && status !== 404) throw new Error(`storage answered ${status}`);
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", message: `could not discard ${what}: ${(error as Error).message}` }));
  }
}
