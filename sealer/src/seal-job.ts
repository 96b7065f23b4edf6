import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { KeyObject } from "node:crypto";
import type { SealedResult, SealJob, SealJobFile, SealResult } from "../../shared/sealer-protocol.ts";
import { canCarryC2pa, type ManifestDefinition } from "./c2pa/c2pa.ts";
import { SigningFailedError, signingPool, SigningThreadError, type SignedCopy } from "./c2pa/signing-pool.ts";
import { buildManifest } from "./manifest.ts";
import { sealManifest } from "./seal/manifest-seal.ts";
import type { SealIdentity } from "./seal/seal-identity.ts";
import { mediaFacts } from "./provenance/media-facts.ts";
import { carriesC2paBlock, mayNameRemoteManifest, readPriorCredentials } from "./provenance/prior-credentials.ts";
import { fileSignals, pixelSignals } from "./provenance/signals.ts";
import { pixelFacts } from "./provenance/fingerprint.ts";
import { videoFingerprints } from "./provenance/video-fingerprints.ts";
import { sealedFileManifest } from "./provenance/capture-assertions.ts";
import { obtainTimestamp } from "./tsa/obtain-timestamp.ts";
import { confirmWithOpenssl } from "./tsa/confirm-with-openssl.ts";
import type { TimestampAuthority } from "./tsa/authority.ts";
import { FileRejectedError, verifyFile } from "./verify-file.ts";
import type { ByteBudget } from "./byte-budget.ts";
import { discard, download, TransientJobError } from "./transfer.ts";
import { storeSignedCopy } from "./store-signed-copy.ts";
import { decodePicture } from "./thumbnail.ts";
import { jobSignal } from "./job-abort.ts";
import { PhaseClock } from "./phase-clock.ts";
import { captureRevocation } from "./revocation/capture-revocation.ts";
import { revocationFiles } from "../../shared/revocation-data.ts";
import type { CrlSource } from "./revocation/crl-source.ts";
import { pemCertificatesDer } from "../../shared/timestamp-check.ts";

export { TransientJobError } from "./transfer.ts";

export interface SealContext {
  key: KeyObject;
  chainDer: Uint8Array[];
  trustAnchorPem: string;
  /** Signs manifest.json as manifest.p7s: the proof seal of the job's mode, issued by the same root as the C2PA signer (docs/adr/0027). */
  seal: SealIdentity;
  /** Timestamps the proof's manifest (for live proofs: the qualified authority, paid once per proof). */
  authority: TimestampAuthority;
  /**
   * Timestamps each file's C2PA signature (`sigTst2`); `authority` when absent. A separate one keeps the
   * qualified authority at one request per proof (docs/adr/0020).
   */
  signatureAuthority?: TimestampAuthority;
  /** Bytes of originals held at once, shared by every job of the process (none: unbounded). */
  budget?: ByteBudget;
  /** Where the CRLs of both chains are fetched at sealing, and cached until their nextUpdate (docs/adr/0022). */
  crls: CrlSource;
}

/** Files of one proof signed at the same time (memory is bounded separately, by the ByteBudget). */
const FILE_CONCURRENCY = 3;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Runs `work` over `items`, at most `limit` at a time, starting the next as soon as one ends; stops taking
 * new items after a failure, and settles only once every item under way has ended (so nothing of the job
 * is still running, holding memory or writing, when its failure is handled), then throws the first error.
 */
async function withConcurrency<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const runner = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, runner));
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
  return results;
}

/** Every promise's value once all have settled, or the first (in order) failure. */
async function allSettledOrFirstError<T>(promises: Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(promises);
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

/**
 * A photo decoded for its fingerprints and thumbnail, or null: pixels libvips cannot read in a container the
 * sealer accepted get neither (the page shows a tile); whether such a file is sealed is C2PA signing's decision.
 */
async function decodedOrNone(file: SealJobFile, original: Uint8Array, sniffed: string) {
  try {
    return await decodePicture(original, sniffed);
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", message: `no thumbnail nor fingerprint for ${file.id}: ${(error as Error).message}` }));
    return null;
  }
}

/**
 * Seals one proof: each file is fetched, verified (declared size and hash, real type, well-formed
 * container), C2PA-signed with a timestamp inside its signature, and written back beside the original;
 * then the manifest listing both hashes of every file is timestamped by the authority, and the answer
 * is checked before it is returned. A bad file ends in `failed` with its code; anything that may pass
 * (storage, authority) throws for the Worker to retry.
 *
 * The job runs only while someone waits for it: when `caller` aborts (the Worker disconnected) or the
 * job's deadline passes, it throws JobAbortedError as soon as the work under way can stop, having given
 * back its memory budget, asked the authority for nothing more, and deleted the copies it wrote. A job
 * that ends any other way than sealed deletes them too: nobody will publish them.
 */
export async function runSealJob(context: SealContext, job: SealJob, caller?: AbortSignal): Promise<SealResult> {
  const { signal, dispose } = jobSignal(job.deadline, caller);
  const written = new Set<SealJobFile>();
  try {
    const result = await sealFiles(context, job, signal, written);
    // A caller that left would never receive the answer, and its retry makes another run.
    signal.throwIfAborted();
    if (result.status === "failed") await Promise.all([...written].map(discard));
    return result;
  } catch (error) {
    await Promise.all([...written].map(discard));
    throw error;
  } finally {
    dispose();
  }
}

/** The work of one job under `aborted`; `written` collects every signed copy it starts to write. */
async function sealFiles(context: SealContext, job: SealJob, aborted: AbortSignal, written: Set<SealJobFile>): Promise<SealResult> {
  // The first file that fails stops its siblings too: the job's outcome is decided.
  const firstFailure = new AbortController();
  const signal = AbortSignal.any([aborted, firstFailure.signal]);
  // The C2PA signer's revocation status, fetched while the files are signed; awaited with the manifest's.
  const c2paRevocation = captureRevocation(
    context.crls,
    "c2pa",
    context.chainDer[0]!,
    [...context.chainDer, ...pemCertificatesDer(context.trustAnchorPem)],
    aborted,
  );
  c2paRevocation.catch(() => undefined);
  // The proof seal's own, captured the same way (a revoked seal key seals nothing): its entry is in the package.
  const sealRevocation = captureRevocation(
    context.crls,
    "seal",
    context.seal.certificateDer,
    [...context.seal.intermediatesDer, ...pemCertificatesDer(context.trustAnchorPem)],
    aborted,
    "proof seal",
  );
  sealRevocation.catch(() => undefined);
  const clock = new PhaseClock();
  const timestamp = (authority: TimestampAuthority, data: Uint8Array, under: AbortSignal) => {
    clock.countAuthorityCall(authority === context.authority ? "proof_authority" : "signature_authority");
    return clock.time("timestamps", () => obtainTimestamp(authority, data, under));
  };
  /** The manifest's timestamp, confirmed by openssl, the three chains' revocation status, and the seal over both. */
  const timestampManifest = async (manifest: ReturnType<typeof buildManifest>) => {
    // Under `signal`: once a copy failed to be written, the outcome is decided and nothing more is asked.
    const manifestBytes = new TextEncoder().encode(manifest.json);
    const proofTimestamp = await timestamp(context.authority, manifestBytes, signal);
    const tsaPool = [...proofTimestamp.certificates, ...pemCertificatesDer(context.authority.chainPem)];
    const [, tsaRevocation, c2paRevocationEntries, sealRevocationEntries] = await clock.time("timestamps", () =>
      Promise.all([
        confirmWithOpenssl(proofTimestamp.response, manifestBytes, context.authority.chainPem),
        captureRevocation(context.crls, "tsa", proofTimestamp.signerCertificate, tsaPool, aborted),
        c2paRevocation,
        sealRevocation,
      ]),
    );
    const revocation = [...tsaRevocation, ...c2paRevocationEntries, ...sealRevocationEntries];
    // The seal over the whole proof, made once the revocation data it lists is known (docs/adr/0049).
    const manifestSeal = sealManifest(manifestBytes, context.seal, new Date(), revocationFiles(revocation));
    return { proofTimestamp, revocation, manifestSeal };
  };
  /** The signed copy, made on a signing thread; `original` is handed over to it. */
  const signedCopy = async (
    file: SealJobFile,
    original: Uint8Array,
    format: string,
    manifest: Pick<ManifestDefinition, "assertions" | "parent">,
  ): Promise<SignedCopy> => {
    if (!canCarryC2pa(format)) return { bytes: original, sha256: sha256(original), crc32: crc32(original) };
    // The wait for the signature's timestamp counts as timestamps, not as signing.
    let signingSince = performance.now();
    const signatureTimestamp = async (message: Uint8Array) => {
      clock.record("signing", signingSince);
      try {
        return (await timestamp(context.signatureAuthority ?? context.authority, message, signal)).token;
      } finally {
        signingSince = performance.now();
      }
    };
    const definition = { title: file.id, format, ...manifest };
    try {
      return await signingPool().sign({ bytes: original, definition, key: context.key, chainDer: context.chainDer, timestamp: signatureTimestamp }, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof SigningThreadError) throw new TransientJobError(error.message);
      if (!(error instanceof SigningFailedError)) throw error;
      throw new FileRejectedError("file_corrupt", file.id, `The ${format} file cannot carry a C2PA manifest: ${error.message}`);
    } finally {
      clock.record("signing", signingSince);
    }
  };
  type SealedFile = SealedResult["files"][number];
  /**
   * A file fetched, verified and signed; what is returned is its result but the thumbnail, and the writing
   * of its copy and thumbnail, under way: it goes on while the next files are fetched and signed (so the
   * signing threads do not wait for it), and the job settles only once it has ended.
   */
  const sealFile = async (
    file: SealJobFile,
  ): Promise<{ sealed: Omit<SealedFile, "thumbnail">; arrivedWithCredentials: boolean; stored: Promise<SealedFile["thumbnail"]> }> => {
    const original = await clock.time("download", () => download(file, signal));
    const verificationStarted = performance.now();
    const sniffed = verifyFile(file, original, sha256(original));
    const carriesBlock = carriesC2paBlock(original);
    // c2pa-rs finds an earlier manifest only in a C2PA block or through a remote reference: without either
    // there is nothing to read, and reading would copy the whole file into c2pa-rs on the event loop.
    const prior = canCarryC2pa(sniffed) && (carriesBlock || mayNameRemoteManifest(original)) ? await readPriorCredentials(original, sniffed) : null;
    const priorState = prior !== null ? "readable" : carriesBlock ? "unreadable" : "none";
    const facts = mediaFacts(original, sniffed);
    // The pixels the phone sent (the signed copy holds the same ones), decoded once for the fingerprints, which
    // the Worker compares with earlier photos, and for the thumbnail.
    const picture = file.kind === "photo" ? await decodedOrNone(file, original, sniffed) : null;
    const pixels = picture && (await pixelFacts(picture));
    const fingerprint = pixels?.fingerprint ?? null;
    // A video's few frames, decoded by ffmpeg from the verified bytes and hashed as photos are (docs/adr/0059).
    const frames = file.kind === "video" ? await videoFingerprints(original, sniffed, facts.duration_ms, signal) : [];
    const signals = [...fileSignals(file, sniffed, facts, priorState), ...pixelSignals(file, facts, pixels)];
    clock.record("verification", verificationStarted);
    const signed = await signedCopy(file, original, sniffed, sealedFileManifest(job, file, sniffed, facts, signals, priorState, fingerprint, frames));
    signal.throwIfAborted();
    written.add(file);
    const stored = clock.time("upload", () => storeSignedCopy(file, signed.bytes, picture, job.proof.mode, signal));
    // The CRC-32 the package's ZIP needs, computed by the sealer (natively, while the bytes are in
    // memory) so the Worker never has to read a large file to compute it.
    const sealed = {
      id: file.id,
      signed_sha256: signed.sha256,
      signed_size: signed.bytes.length,
      signed_crc32: signed.crc32,
      sniffed_type: sniffed,
      prior_c2pa: prior !== null,
      prior_credentials: prior,
      decoded: { width: facts.width, height: facts.height, duration_ms: facts.duration_ms },
      signals,
      fingerprint,
      crop_fingerprints: pixels?.crops ?? [],
      query_crop_fingerprints: pixels?.queryCrops ?? [],
      frame_fingerprints: frames,
    };
    return { sealed, arrivedWithCredentials: priorState !== "none", stored };
  };
  // Each file's writing, in the job's order; a failure stops the files not yet signed too.
  const storing: Promise<SealedFile["thumbnail"]>[] = [];
  let signedFiles: { sealed: Omit<SealedFile, "thumbnail">; arrivedWithCredentials: boolean }[];
  try {
    signedFiles = await withConcurrency(job.files, FILE_CONCURRENCY, async (file, index) => {
      const release = context.budget ? await context.budget.acquire(file.size, signal) : () => undefined;
      try {
        const { sealed, arrivedWithCredentials, stored } = await sealFile(file);
        // The original's bytes are the budget's: given back once the copy made from them is written.
        storing[index] = stored.catch((error) => {
          firstFailure.abort(error);
          throw error;
        });
        storing[index].finally(release).catch(() => undefined);
        return { sealed, arrivedWithCredentials };
      } catch (error) {
        firstFailure.abort(error);
        release();
        throw error;
      }
    });
  } catch (error) {
    await Promise.allSettled(storing);
    if (error instanceof FileRejectedError) return { status: "failed", code: error.code, message: error.message, file_id: error.fileId };
    throw error;
  }
  // Every file is signed, so the manifest is known: it is timestamped and confirmed while the last copies
  // are still being written (their failure, rare, then costs one timestamp the retry asks again).
  const manifest = buildManifest(
    job,
    new Map(
      signedFiles.map(({ sealed, arrivedWithCredentials }) => [sealed.id, { signed_sha256: sealed.signed_sha256, prior_credentials: arrivedWithCredentials }]),
    ),
  );
  const [thumbnails, timestamped] = await Promise.allSettled([allSettledOrFirstError(storing), timestampManifest(manifest)]);
  if (thumbnails.status === "rejected") throw thumbnails.reason;
  if (timestamped.status === "rejected") throw timestamped.reason;
  const { proofTimestamp, revocation, manifestSeal } = timestamped.value;
  const sealedFiles = signedFiles.map(({ sealed }, index) => ({ ...sealed, thumbnail: thumbnails.value[index]! }));
  return {
    status: "sealed",
    manifest: manifest.json,
    manifest_sha256: manifest.sha256,
    manifest_p7s_base64: Buffer.from(manifestSeal).toString("base64"),
    tsr_base64: Buffer.from(proofTimestamp.response).toString("base64"),
    chain_pem: context.authority.chainPem,
    c2pa_trust_anchor_pem: context.trustAnchorPem,
    timestamp: {
      gen_time: proofTimestamp.genTime,
      serial: proofTimestamp.serial,
      policy: proofTimestamp.policy,
      authority: proofTimestamp.authority,
      qualified: proofTimestamp.qualified,
    },
    files: sealedFiles,
    revocation,
    timings: clock.timings(),
  };
}
