import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { KeyObject } from "node:crypto";
import type { SealJob, SealJobFile, SealResult } from "../../src/sealing/sealer-protocol.ts";
import { canCarryC2pa, hasC2paManifest, signWithC2pa } from "./c2pa/c2pa.ts";
import type { CoseSigner } from "./c2pa/cose.ts";
import { buildManifest } from "./manifest.ts";
import { obtainTimestamp } from "./tsa/obtain-timestamp.ts";
import { confirmWithOpenssl } from "./tsa/confirm-with-openssl.ts";
import { TimestampUnavailableError, type TimestampAuthority } from "./tsa/authority.ts";
import { FileRejectedError, verifyFile } from "./verify-file.ts";
import type { ByteBudget } from "./byte-budget.ts";

/** Storage or the network failed in a way that may pass: the Worker retries the whole job later. */
export class TransientJobError extends Error {}

export interface SealContext {
  key: KeyObject;
  chainDer: Uint8Array[];
  trustAnchorPem: string;
  authority: TimestampAuthority;
  /** Bytes of originals held at once, shared by every job of the process (none: unbounded). */
  budget?: ByteBudget;
}

/** Files of one proof signed at the same time (memory is bounded separately, by the ByteBudget). */
const FILE_CONCURRENCY = 3;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function download(file: SealJobFile): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(file.source.url, { headers: file.source.headers, signal: AbortSignal.timeout(120_000) });
  } catch (error) {
    throw new TransientJobError(`storage unreachable: ${(error as Error).message}`);
  }
  if (response.status === 404) throw new FileRejectedError("file_missing", file.id, "The file is not in storage.");
  if (!response.ok) throw new TransientJobError(`storage answered ${response.status} for ${file.id}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function upload(file: SealJobFile, bytes: Uint8Array): Promise<void> {
  let response: Response;
  try {
    response = await fetch(file.destination.url, {
      method: file.destination.method,
      headers: { ...file.destination.headers, "Content-Length": String(bytes.length) },
      body: Buffer.from(bytes),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    throw new TransientJobError(`storage unreachable: ${(error as Error).message}`);
  }
  await response.body?.cancel();
  if (!response.ok) throw new TransientJobError(`storage refused the signed copy of ${file.id} (${response.status})`);
}

function captureAssertions(job: SealJob, file: SealJobFile) {
  return [
    {
      label: "c2pa.actions",
      data: { actions: [{ action: "c2pa.created", digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture" }] },
    },
    {
      label: "com.proofseal.capture",
      data: {
        proof_id: job.proof.id,
        session_id: job.proof.session_id,
        step_id: file.step_id,
        captured_at: file.captured_at,
        capture: file.capture_context,
        mode: job.proof.mode,
        external_reference: job.proof.external_reference,
      },
    },
  ];
}

/** Runs `work` over `items`, at most `limit` at a time, starting the next as soon as one ends; stops taking new items after a failure. */
async function withConcurrency<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const runner = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}

/**
 * Seals one proof: each file is fetched, verified (declared size and hash, real type, well-formed
 * container), C2PA-signed with a timestamp inside its signature, and written back beside the original;
 * then the manifest listing both hashes of every file is timestamped by the authority, and the answer
 * is checked before it is returned. A bad file ends in `failed` with its code; anything that may pass
 * (storage, authority) throws for the Worker to retry.
 */
export async function runSealJob(context: SealContext, job: SealJob): Promise<SealResult> {
  const signer: CoseSigner = {
    key: context.key,
    chainDer: context.chainDer,
    timestamp: async (message) => (await obtainTimestamp(context.authority, message)).token,
  };
  const signedCopy = async (file: SealJobFile, original: Uint8Array, format: string): Promise<Uint8Array> => {
    if (!canCarryC2pa(format)) return original;
    try {
      return await signWithC2pa(original, { title: file.id, format, assertions: captureAssertions(job, file) }, signer);
    } catch (error) {
      if (error instanceof TransientJobError || error instanceof TimestampUnavailableError) throw error;
      throw new FileRejectedError("file_corrupt", file.id, `The ${format} file cannot carry a C2PA manifest: ${(error as Error).message}`);
    }
  };
  const sealFile = async (file: SealJobFile) => {
    const original = await download(file);
    const sniffed = verifyFile(file, original, sha256(original));
    const priorC2pa = await hasC2paManifest(original, sniffed);
    const signed = await signedCopy(file, original, sniffed);
    await upload(file, signed);
    // The CRC-32 the package's ZIP needs, computed here (natively, while the bytes are in memory) so the
    // Worker never has to read a large file to compute it.
    return { id: file.id, signed_sha256: sha256(signed), signed_size: signed.length, signed_crc32: crc32(signed), sniffed_type: sniffed, prior_c2pa: priorC2pa };
  };
  let sealedFiles;
  try {
    sealedFiles = await withConcurrency(job.files, FILE_CONCURRENCY, async (file) => {
      const release = context.budget ? await context.budget.acquire(file.size) : () => undefined;
      try {
        return await sealFile(file);
      } finally {
        release();
      }
    });
  } catch (error) {
    if (error instanceof FileRejectedError) return { status: "failed", code: error.code, message: error.message, file_id: error.fileId };
    throw error;
  }
  const manifest = buildManifest(job, new Map(sealedFiles.map((file) => [file.id, file.signed_sha256])));
  const timestamp = await obtainTimestamp(context.authority, new TextEncoder().encode(manifest.json));
  await confirmWithOpenssl(timestamp.response, manifest.sha256, context.authority.chainPem);
  return {
    status: "sealed",
    manifest: manifest.json,
    manifest_sha256: manifest.sha256,
    tsr_base64: Buffer.from(timestamp.response).toString("base64"),
    chain_pem: context.authority.chainPem,
    c2pa_trust_anchor_pem: context.trustAnchorPem,
    timestamp: {
      gen_time: timestamp.genTime,
      serial: timestamp.serial,
      policy: timestamp.policy,
      authority: timestamp.authority,
      qualified: timestamp.qualified,
    },
    files: sealedFiles,
  };
}
