import type { Database } from "../db/client.ts";
import { newId } from "../lib/ids.ts";
import { eventInsertWhere } from "../storage/events.ts";
import { proofFailed, proofSealed } from "../events/catalogue.ts";
import { nowIso } from "../lib/time.ts";
import { type ObjectStore, signedFileKey, thumbnailKey } from "../storage/objects/bucket.ts";
import { discardSealingRun, storeSealedArtifacts } from "../storage/objects/sealed-artifacts.ts";
import { storeSealedRecord } from "../storage/objects/sealed-records.ts";
import { sealedFiles } from "./sealed-files.ts";
import { indexHashes, indexSealedBytes } from "../storage/objects/hash-index.ts";
import { deleteRevocation } from "../storage/objects/revocation.ts";
import {
  consumeReservationStatement,
  countSealAttempt,
  loadProofForSealing,
  markSealingProgress,
  markFailedStatement,
  markSealedStatement,
  deleteSealedFilesStatement,
  whilePending,
} from "../storage/proof-sealing.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import type { SealedResult, SealFailureCode, SealJob, SealResult } from "../../shared/sealer-protocol.ts";
import { SEAL_TIMEOUT_MS } from "./sealer-client.ts";
import { logSealingTimes } from "./sealing-times.ts";
import { isLikenessToEarlier, SEALED_BEFORE, type StoredSignal } from "../../shared/integrity-signals.ts";
import { earlierProofsByHash } from "../storage/sealed-before.ts";
import type { PhotoFingerprint } from "../storage/file-fingerprints.ts";
import { indexSealedFiles, type SimilarityIndexes } from "../storage/similarity-index.ts";
import { similaritySignals } from "./photo-similarity.ts";
import { proofShards } from "../storage/write-shards.ts";
import { trustAnchorUpserts } from "../storage/trust-anchors.ts";
import { rootFingerprints } from "../../shared/trust-anchors.ts";
import { sealCertificateUpsert } from "../storage/seal-certificates.ts";
import { type SealCertificate, sealCertificate } from "./seal-certificate.ts";
import { type ArtifactHashes, storeArtifactHashes } from "../storage/objects/artifact-hashes.ts";
import { sha256Hex } from "../lib/crypto.ts";

export interface SealingDependencies {
  db: Database;
  /** Where the run's artifacts are stored (the Worker's env). */
  objects: ObjectStore;
  /** The similarity indexes the photos' and videos' prints are written to and looked up in (docs/adr/0064). */
  similarityIndexes: SimilarityIndexes;
  /** Short-lived signed URLs, so the sealer holds no storage credentials of its own. */
  downloadUrl(key: string): Promise<{ url: string; headers?: Record<string, string> }>;
  uploadUrl(key: string, contentType: string): Promise<{ url: string; method: string; headers: Record<string, string> }>;
  /** Deletes what `uploadUrl` wrote: the sealer uses it when it abandons a run (deadline, disconnection). */
  discardUrl(key: string): Promise<{ url: string; method: string; headers: Record<string, string> }>;
  seal(job: SealJob): Promise<SealResult>;
  /** Hands freshly recorded events to webhook delivery. */
  publishEvents(eventIds: string[]): Promise<void>;
}

/** How often a proof being sealed marks its progress (its `updated_at`, read by src/sweeps/resume-stalled-sealing.ts). */
export const SEALING_PROGRESS_EVERY_MS = 15_000;

export type SealOutcome = "sealed" | "failed" | "already_done" | "not_found";

/**
 * Seals one pending proof: the sealer verifies, signs and timestamps its files; the artifacts are stored;
 * then, in one batch, the proof becomes sealed, the live reservation is consumed and `proof.sealed` is
 * recorded. Safe to run twice, even at the same time (a queue redelivery, the stalled-sealing sweep): each
 * run writes under its own prefix, everything after the sealer call only takes effect while the proof is
 * still pending, and the proof records the one run that sealed it. A transient failure throws
 * (TransientSealingError) so that the queue retries.
 */
export async function sealProof(deps: SealingDependencies, proofId: string): Promise<SealOutcome> {
  const loaded = await loadProofForSealing(deps.db, proofId);
  if (loaded === null) return "not_found";
  if (loaded.proof.status !== "pending") return "already_done";
  await countSealAttempt(deps.db, proofId);
  const run = newId("run");
  let result: SealResult;
  const job = await buildJob(deps, loaded, run);
  const sealerCalledAt = Date.now();
  // While the sealer works the proof shows progress, so that the stalled-sealing sweep sends it again soon
  // after this Worker dies (ADR 0050) without ever taking a long seal for a stalled one.
  const progress = setInterval(() => void markSealingProgress(deps.db, proofId).catch(() => undefined), SEALING_PROGRESS_EVERY_MS);
  try {
    result = await deps.seal(job);
  } catch (error) {
    // The sealer deletes what a run it abandons wrote, but a sealer that died mid-run cannot: the next
    // attempt is a new run, so this one's copies would stay unpublished in storage for ever.
    await discardSealingRun(deps.objects, proofId, run, loaded.files);
    throw error;
  } finally {
    clearInterval(progress);
  }
  if (result.status === "failed") {
    await discardSealingRun(deps.objects, proofId, run, loaded.files);
    return failProof(deps, loaded.proof, result);
  }
  const sealerAnsweredAt = Date.now();
  let sealedWith: SealCertificate;
  try {
    sealedWith = await sealCertificate(base64Bytes(result.manifest_p7s_base64));
  } catch (error) {
    // A seal that names no certificate it carries is the sealer's fault: nothing of this run is published.
    await discardSealingRun(deps.objects, proofId, run, loaded.files);
    throw error;
  }
  await storeSealedArtifacts(deps.objects, proofId, run, result);
  const outcome = await recordSealed(deps, loaded.proof, loaded.files, result, run, sealedWith);
  if (outcome === "sealed") logSealingTimes(proofId, result, { completedAt: loaded.proof.createdAt, sealerCalledAt, sealerAnsweredAt, recordedAt: Date.now() });
  // Another run sealed the proof first: this run's copies are published nowhere.
  if (outcome === "already_done") {
    await discardSealingRun(deps.objects, proofId, run, loaded.files);
    await deleteRevocation(deps.objects, proofId, run, result.revocation);
  }
  return outcome;
}

/** Each file's 1-based position within its step, in capture order (the order the files are given in). */
function stepPositions(files: FileRow[]): Map<string, number> {
  const taken = new Map<string, number>();
  return new Map(
    files.map((file) => {
      const position = (taken.get(file.stepId) ?? 0) + 1;
      taken.set(file.stepId, position);
      return [file.id, position];
    }),
  );
}

async function buildJob(
  deps: SealingDependencies,
  { proof, files, compareToManifestSha256 }: { proof: ProofRow; files: FileRow[]; compareToManifestSha256: string | null },
  run: string,
): Promise<SealJob> {
  // A session compares only to a sealed proof, which has its manifest: without it the pair cannot be sealed.
  if (proof.compareTo !== null && compareToManifestSha256 === null) throw new Error(`proof ${proof.id}: its before ${proof.compareTo} has no manifest_sha256`);
  const positions = stepPositions(files);
  return {
    // The sealer stops when the Worker stops waiting, whether or not the disconnection reaches it.
    deadline: new Date(Date.now() + SEAL_TIMEOUT_MS).toISOString(),
    proof: {
      id: proof.id,
      organization_id: proof.organizationId,
      mode: proof.mode,
      external_reference: proof.externalReference,
      party: proof.party,
      stage: proof.stage,
      category: proof.category,
      location_reference: proof.locationReference,
      session_id: proof.sessionId,
      compare_to: proof.compareTo,
      compare_to_manifest_sha256: compareToManifestSha256,
      template_sha256: proof.templateSha256,
    },
    files: await Promise.all(
      files.map(async (file) => ({
        id: file.id,
        step_id: file.stepId,
        position: positions.get(file.id)!,
        kind: file.kind,
        content_type: file.contentType,
        size: file.size,
        sha256: file.sha256,
        captured_at: file.capturedAt ?? file.createdAt,
        capture_context: file.captureContext ?? null,
        source: await deps.downloadUrl(file.originalKey),
        destination: await deps.uploadUrl(signedFileKey(proof.id, run, file.id, file.contentType), file.contentType),
        discard: await deps.discardUrl(signedFileKey(proof.id, run, file.id, file.contentType)),
        // Made by the sealer from the signed bytes; the phone never supplies one (docs/adr/0021).
        thumbnail: {
          destination: await deps.uploadUrl(thumbnailKey(proof.id, run, file.id), "image/webp"),
          discard: await deps.discardUrl(thumbnailKey(proof.id, run, file.id)),
        },
      })),
    ),
  };
}

const base64Bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

/** The SHA-256 and size of the artifacts storeSealedArtifacts writes for `result`, from the same bytes. */
async function storedArtifacts(result: SealedResult): Promise<ArtifactHashes> {
  const of = async (bytes: Uint8Array) => ({ sha256: await sha256Hex(bytes), size: bytes.length });
  const text = (value: string) => new TextEncoder().encode(value);
  return {
    "manifest.json": await of(text(result.manifest)),
    "proof.tsr": await of(base64Bytes(result.tsr_base64)),
    "chain.pem": await of(text(result.chain_pem)),
    "manifest.p7s": await of(base64Bytes(result.manifest_p7s_base64)),
  };
}

/** Whose the proof's events are, and the fields `proof.sealed` and `proof.failed` open with. */
function proofEventOrigin(proof: ProofRow, createdAt: string) {
  return { organizationId: proof.organizationId, mode: proof.mode, createdAt };
}

function proofEventFields(proof: ProofRow) {
  return { proof_id: proof.id, session_id: proof.sessionId, external_reference: proof.externalReference, party: proof.party, stage: proof.stage };
}

async function recordSealed(
  deps: SealingDependencies,
  proof: ProofRow,
  files: FileRow[],
  result: SealedResult,
  run: string,
  sealedWith: SealCertificate,
): Promise<SealOutcome> {
  const sealedAt = nowIso();
  const eventId = newId("evt");
  const photos = photoFingerprints(files, result);
  const signals = await signalsWithEarlierSeals(deps, proof, files, result, photos);
  const event = proofSealed.build(proofEventOrigin(proof, sealedAt), {
    ...proofEventFields(proof),
    compare_to: proof.compareTo,
    manifest_sha256: result.manifest_sha256,
    timestamp: { gen_time: result.timestamp.gen_time, qualified: result.timestamp.qualified },
    sealed_at: sealedAt,
    // The organization's own view (the webhook goes to it only), so that a suspicious proof can be routed to a person.
    signals: result.files.flatMap((file) => (signals.get(file.id) ?? []).map((signal) => ({ ...signal, file_id: file.id }))),
  });
  // The files whole go to R2 once, before the batch that says sealed deletes their rows (docs/adr/0065).
  const recordSha256 = await storeSealedRecord(deps.objects, proof.id, run, sealedFiles(proof.id, run, files, result, signals));
  // The hashes the re-hash sweep compares the stored artifacts with, from the bytes this run stored (docs/adr/0066).
  await storeArtifactHashes(deps.objects, proof.id, run, await storedArtifacts(result));
  // The organization's next proofs find these bytes, once their rows are gone, by hash (docs/adr/0065).
  await indexSealedBytes(deps.objects, proof, sealedAt, [...files.map((file) => file.sha256), ...result.files.map((file) => file.signed_sha256)]);
  // Compared with the organization's next files once the batch says sealed (docs/adr/0064): written first, by file id.
  await indexSealedFiles(deps.similarityIndexes, proof, photos);
  // Verify-by-hash finds the signed files without asking every shard (docs/adr/0062): indexed before the batch says sealed.
  await indexHashes(
    deps.objects,
    proof.id,
    result.files.map((file) => file.signed_sha256),
  );
  const [tsaRoots, c2paRoots] = await Promise.all([rootFingerprints(result.chain_pem), rootFingerprints(result.c2pa_trust_anchor_pem)]);
  const roots = [...tsaRoots.map((root) => ({ kind: "timestamp_authority" as const, root })), ...c2paRoots.map((root) => ({ kind: "c2pa" as const, root }))];
  const [, eventInsert] = await deps.db.batch([
    consumeReservationStatement(deps.db, proof),
    eventInsertWhere(deps.db, event, whilePending(proof.id), eventId),
    deleteSealedFilesStatement(deps.db, proof),
    // Published at GET /v1/public/trust-anchors so that verifiers can pin them (issue 14).
    ...trustAnchorUpserts(deps.db, roots, proof.mode, sealedAt),
    // Listed beside the roots, so that a new sealing certificate (a rotation) is visible (docs/adr/0027).
    sealCertificateUpsert(deps.db, sealedWith, proof.mode, sealedAt),
    markSealedStatement(deps.db, proof.id, {
      run,
      recordSha256,
      manifestSha256: result.manifest_sha256,
      sealCertificate: sealedWith,
      genTime: result.timestamp.gen_time,
      qualified: result.timestamp.qualified,
      authority: result.timestamp.authority,
      serial: result.timestamp.serial,
      policy: result.timestamp.policy,
      sealedAt,
    }),
  ]);
  if (!changedRows(eventInsert)) return "already_done";
  await deps.publishEvents([eventId]);
  return "sealed";
}

/**
 * The photos and videos the sealer fingerprinted, in the job's order, with their steps. A video stands as its middle
 * frame, banded as a photo's whole picture is, its other frames stored beside it as a photo's crops are
 * (docs/adr/0059); each of its frames is looked up and compared, so that a copy trimmed at either end, whose frames
 * fall at other times, is found by the frames that still coincide (docs/adr/0063).
 */
function photoFingerprints(files: FileRow[], result: SealedResult): PhotoFingerprint[] {
  const steps = new Map(files.map((file) => [file.id, file.stepId]));
  return result.files.flatMap((file) => {
    const frames = file.frame_fingerprints.map(({ phash, dhash }) => ({ phash, dhash }));
    const middle = Math.min(1, frames.length - 1);
    const [whole, ...crops] = file.fingerprint
      ? [file.fingerprint, ...file.crop_fingerprints]
      : [...frames.slice(middle, middle + 1), ...frames.filter((_, index) => index !== middle)];
    const kind = file.fingerprint ? ("photo" as const) : ("video" as const);
    const queryCrops = file.fingerprint ? file.query_crop_fingerprints : [];
    return whole ? [{ fileId: file.id, stepId: steps.get(file.id) ?? "", kind, phash: whole.phash, dhash: whole.dhash, crops, queryCrops }] : [];
  });
}

/**
 * The sealer's signals of each file, plus what only the Worker can see, needing the organization's other
 * proofs: `sealed_before` when the same original bytes (or a signed copy uploaded again) are already in
 * another sealed proof, and the similarity signals of the photos' fingerprints (docs/adr/0041).
 */
async function signalsWithEarlierSeals(
  { db, objects, similarityIndexes }: Pick<SealingDependencies, "db" | "objects" | "similarityIndexes">,
  proof: ProofRow,
  files: FileRow[],
  result: SealedResult,
  photos: PhotoFingerprint[],
): Promise<Map<string, StoredSignal[]>> {
  // The organization's shards, its list of write shards read once for both look-ups, and only if one needs it.
  const shards = proofShards(similarityIndexes, db, proof);
  const [earlier, similar] = await Promise.all([
    earlierProofsByHash(
      shards,
      objects,
      proof,
      files.map((file) => file.sha256),
    ),
    similaritySignals(shards, similarityIndexes, proof, photos),
  ]);
  const originals = new Map(files.map((file) => [file.id, file.sha256.toLowerCase()]));
  return new Map(
    result.files.map((file) => {
      const earlierProof = earlier.get(originals.get(file.id) ?? "");
      const sealedBefore: StoredSignal[] = earlierProof
        ? [{ code: SEALED_BEFORE, detail: `The same bytes were sealed before, in proof ${earlierProof}.`, proof_id: earlierProof }]
        : [];
      // The same bytes sealed before already say more than a likeness: the likeness is not repeated.
      const similarities = (similar.get(file.id) ?? []).filter((signal) => sealedBefore.length === 0 || !isLikenessToEarlier(signal.code));
      return [file.id, [...file.signals, ...sealedBefore, ...similarities]];
    }),
  );
}

/** Why a proof failed for good: a file the sealer refused, or a sealer that stayed unavailable (consumer.ts). */
export interface ProofFailure {
  code: SealFailureCode | "sealing_unavailable";
  message: string;
}

export async function failProof(deps: SealingDependencies, proof: ProofRow, failure: ProofFailure): Promise<SealOutcome> {
  const failedAt = nowIso();
  const eventId = newId("evt");
  const event = proofFailed.build(proofEventOrigin(proof, failedAt), {
    ...proofEventFields(proof),
    code: failure.code,
    message: failure.message,
    failed_at: failedAt,
  });
  const [eventInsert] = await deps.db.batch([
    eventInsertWhere(deps.db, event, whilePending(proof.id), eventId),
    markFailedStatement(deps.db, proof.id, { code: failure.code, message: failure.message, failedAt }),
  ]);
  if (!changedRows(eventInsert)) return "already_done";
  await deps.publishEvents([eventId]);
  return "failed";
}

function changedRows(result: unknown): boolean {
  return ((result as { meta?: { changes?: number } }).meta?.changes ?? 0) > 0;
}
