import type { WorkerContext } from "../domain/context.ts";
import type { FileRow } from "../storage/rows.ts";
import { proofFiles } from "../storage/proofs-read.ts";
import { bindFactsRecords } from "./bind-facts-records.ts";
import { type ArtifactHashes, readArtifactHashes, readStoredManifest, type StoredArtifact, type StoredManifest } from "../storage/objects/artifact-hashes.ts";
import {
  artifactHashesKey,
  fileExtension,
  hashObject,
  type ObjectStore,
  packagedArtifactKey,
  proofArtifactKeys,
  sealedRecordKey,
  signedFileKey,
} from "../storage/objects/bucket.ts";
import {
  type ObjectCheck,
  objectChecksOf,
  type ProofToRehash,
  type RehashCursor,
  type RehashOutcome,
  recordRehashRun,
  rehashCursor,
  type SealedObject,
  sealedProofsAfter,
  startNextRound,
} from "../storage/sealed-object-checks.ts";
import { boundThumbnail, sealedThumbnail } from "../storage/objects/thumbnails.ts";

/**
 * What one run (each minute, per shard) may do, well within an invocation's limits (docs/adr/0066): the objects of
 * the proofs after the shard's cursor, in order, until `objects` objects or `bytes` bytes would be passed (SHA-256
 * streamed, so memory stays flat; about 0.3 s of CPU per 128 MiB), a proof larger than that over several runs; one
 * object larger than the budget is still re-hashed alone, or it would never be. `proofs`: sealed proofs listed per
 * query. About 8 D1 queries a run, at most about 30 when every object is missing, of the 1,000 allowed.
 */
export interface RehashBudget {
  objects: number;
  bytes: number;
  proofs: number;
}

export const REHASH_BUDGET: RehashBudget = { objects: 100, bytes: 128 * 1024 * 1024, proofs: 20 };

export interface RehashRun {
  /** Proofs whose objects this run finished re-hashing (a proof larger than the budget takes several runs). */
  proofs: number;
  checked: number;
  bytes: number;
  mismatches: number;
  /** Whether the run ended a round (and started the next). */
  roundEnded: boolean;
}

/** The SHA-256 of an object as stored, streamed (or as already read for the plan); null when it is not there. */
async function rehash(store: ObjectStore, { object, expectedIn, readable, found }: Planned): Promise<RehashOutcome> {
  const stored = found === undefined ? await hashObject(store, object.objectKey) : found;
  const outcome = stored === null ? { foundSha256: null, size: null } : { foundSha256: stored.sha256, size: stored.size };
  return { object, ...outcome, expectedIn, ...(readable === false ? { readable } : {}) };
}

/** An object to re-hash, with where its expected hash is kept; `found`: already read while planning (manifest.json). */
type Planned = Pick<RehashOutcome, "object" | "expectedIn" | "readable"> & { found?: StoredArtifact | null };

/** What a proof's own objects gave: its manifest, its files (null: its sealed record unreadable) and artifact hashes. */
interface ProofReads {
  manifest: StoredManifest;
  files: FileRow[] | null;
  hashes: ArtifactHashes | null;
  hashesReadable: boolean;
}

/**
 * Each proof's manifest, files and artifact hashes, a record of facts that D1 holds no SHA-256 of being bound first
 * (`bindFactsRecords`, docs/adr/0069), then read like any bound record. One bad object (deleted, replaced by other
 * bytes) must not stop the shard's round at its proof (forger session 5, F3): the batch read is retried proof by proof,
 * and what cannot be read is that proof's finding, recorded like any altered object, while the cursor goes on.
 */
async function readProofs(worker: WorkerContext, listed: ProofToRehash[]): Promise<ProofReads[]> {
  const { env, db } = worker;
  const proofs = await bindFactsRecords(worker, listed);
  const filesOf = await proofFiles(db, env, proofs).then(
    (byProof) => proofs.map((proof) => byProof.get(proof.id) ?? []),
    () =>
      Promise.all(
        proofs.map((proof) =>
          proofFiles(db, env, [proof]).then(
            (byProof) => byProof.get(proof.id) ?? [],
            () => null,
          ),
        ),
      ),
  );
  return Promise.all(
    proofs.map(async (proof, index) => {
      const [manifest, hashes] = await Promise.all([
        readStoredManifest(env, proof),
        readArtifactHashes(env, proof).then(
          (read) => ({ hashes: read, hashesReadable: true }),
          () => ({ hashes: null, hashesReadable: false }),
        ),
      ]);
      return { manifest, files: filesOf[index]!, ...hashes };
    }),
  );
}

/** The artifacts re-hashed beside the manifest, by key and name in the package. */
type ArtifactEntry = [string, "proof.tsr" | "chain.pem" | "manifest.p7s"];

/**
 * Whether a proof without artifact-hashes.json was sealed by the Worker before migration 0026 though numbered after
 * it (between `migrations apply` and `wrangler deploy`, forger session 5, F5): that Worker wrote each artifact's
 * expected hash in its row instead, and an insider with the bucket alone cannot write rows.
 */
const sealedWithRows = (artifacts: ArtifactEntry[], rowOf: Map<string, ObjectCheck>) =>
  artifacts.every(([key]) => (rowOf.get(key)?.expectedSha256 ?? null) !== null);

/**
 * The signed files to re-hash, each with the hash it must have. When manifest.json is the sealed one, from it: its
 * files in its order (signed, so a round resumed at the cursor's offset lists them as the run before did, whatever
 * record.json says, forger session 5, F6) with its `signed_sha256`, at the key the proof's files name (else where
 * sealing writes it). Otherwise (the manifest altered, missing, or listing no files) from `proofFiles` in capture
 * order: the manifest's own finding already says the proof is not the one sealed.
 */
function signedFilesOf(
  proof: ProofToRehash,
  { manifest, files }: ProofReads,
): { key: string; id: string; entry: string; sha256: string; size: number | null }[] {
  const named = (id: string, contentType: string) => `files/${id}.${fileExtension(contentType)}`;
  if (manifest.files === null)
    return (files ?? []).flatMap((file) =>
      file.signedKey === null || file.signedSha256 === null
        ? []
        : [{ key: file.signedKey, id: file.id, entry: named(file.id, file.contentType), sha256: file.signedSha256, size: file.signedSize }],
    );
  const byId = new Map((files ?? []).map((file) => [file.id, file]));
  return manifest.files.flatMap((listed) => {
    const file = byId.get(listed.id);
    const key = file?.signedKey ?? (proof.sealingRun === null ? null : signedFileKey(proof.id, proof.sealingRun, listed.id, listed.content_type));
    if (listed.signed_sha256 === null || key === null) return [];
    return [{ key, id: listed.id, entry: named(listed.id, listed.content_type), sha256: listed.signed_sha256, size: file?.signedSize ?? null }];
  });
}

/** What a proof gives the re-hash: its objects, and the keys of rows its round must delete when it finishes the proof. */
interface ProofObjects {
  objects: Planned[];
  obsolete: string[];
}

/**
 * The objects a sealed proof publishes, each with the hash it must have (docs/adr/0066): manifest.json's is D1's
 * `manifest_sha256` (which the timestamp binds), never an object beside it; its signed files' the sealed manifest's
 * (`signedFilesOf`); its other artifacts' their rows in D1 whenever they hold one, else its run's
 * artifact-hashes.json. A proof sealed with that object that no longer has it: the object itself is a finding
 * (missing), and its artifacts have no hash to compare with (their signatures and pins are still checked on every
 * request). A proof whose rows hold its artifacts' hashes (sealed before migration 0026, or by the Worker before it
 * after it was applied) keeps them for ever: an artifact-hashes.json is never taken over them (forger session 7,
 * G5), one beside a proof sealed before the migration is a finding (sealing never wrote it), and one disagreeing with
 * a row is one. Its thumbnails follow its signed files, each with the SHA-256 its record keeps (none before sealer
 * protocol 12). The list is the same at every run of a round (a proof may take several) while its sealed objects
 * are: a record that cannot be read adds its finding last, after the signed files, so that what comes before keeps
 * its place when it reads again.
 */
function objectsOf(proof: ProofToRehash, reads: ProofReads, rows: ObjectCheck[], cursor: RehashCursor): ProofObjects {
  const { manifest, files, hashes, hashesReadable } = reads;
  const run = proof.sealingRun;
  const keys = proofArtifactKeys(proof.id, run);
  const rowOf = new Map(rows.map((row) => [row.objectKey, row]));
  const rowHash = (objectKey: string) => rowOf.get(objectKey)?.expectedSha256 ?? null;
  const object = (objectKey: string, entry: string, fileId: string | null, expected: string | null, size: number | null): SealedObject => ({
    objectKey,
    proofId: proof.id,
    entry,
    fileId,
    expectedSha256: expected ?? rowHash(objectKey),
    size: size ?? rowOf.get(objectKey)?.size ?? null,
  });
  const manifestObject: Planned = {
    object: object(keys.manifest, "manifest.json", null, proof.manifestSha256, manifest.found?.size ?? null),
    expectedIn: "proof",
    found: manifest.found,
  };
  const artifactEntries: ArtifactEntry[] = [
    [keys.timestampResponse, "proof.tsr"],
    [keys.timestampChain, "chain.pem"],
    // Proofs sealed before the proof-level seal (manifest version 1) have no manifest.p7s: its absence is not an alteration.
    ...(proof.sealCertificateSha256 === null ? [] : [[packagedArtifactKey(proof.id, run, "manifest.p7s"), "manifest.p7s"] as ArtifactEntry]),
  ];
  const beforeHashes = proof.seq < cursor.artifactHashesFrom;
  // The rows hold the artifacts' hashes: sealed before artifact-hashes.json, or by the Worker before it after the migration (F5).
  const inRows = beforeHashes || sealedWithRows(artifactEntries, rowOf);
  const hashesPresent = hashes !== null || !hashesReadable;
  const disagreesWithRows = hashes !== null && artifactEntries.some(([key, entry]) => rowHash(key) !== null && rowHash(key) !== hashes[entry].sha256);
  // Not what sealing wrote: unreadable, vouching for other bytes than a row of D1, or beside a proof sealing wrote none of.
  const hashesRefused = !hashesReadable || disagreesWithRows || (beforeHashes && hashesPresent);
  const hashesKey = run === null ? null : artifactHashesKey(proof.id, run);
  const hashesObject: Planned[] =
    hashesKey === null || (inRows && !hashesPresent)
      ? []
      : [{ object: object(hashesKey, "artifact-hashes.json", null, null, null), expectedIn: "proof", ...(hashesRefused ? { readable: false as const } : {}) }];
  // A finding of an artifact-hashes.json that should not be there goes once it is gone; one of a record that reads
  // again with the SHA-256 D1 binds (restored) once the round finishes the proof, so that nothing waiting on it (the
  // report sweep) waits for ever. Never one of a record no SHA-256 binds: what reads there again may be anything
  // (forger session 8, H1), and only an operator removes that finding (docs/operations.md).
  const recordKey = run === null ? null : sealedRecordKey(proof.id, run);
  const recordRestored = files !== null && proof.sealedRecordSha256 !== null;
  const obsolete = [
    ...(hashesKey !== null && hashesObject.length === 0 && rowOf.has(hashesKey) ? [hashesKey] : []),
    ...(recordRestored && recordKey !== null && rowOf.has(recordKey) ? [recordKey] : []),
  ];
  const trusted = inRows || hashesRefused ? null : hashes;
  const artifacts = artifactEntries.map(([key, entry]): Planned => {
    const row = rowOf.get(key);
    const settled = row !== undefined && row.matched === true && row.expectedSha256 !== null;
    return {
      object: object(key, entry, null, rowHash(key) ?? trusted?.[entry].sha256 ?? null, trusted?.[entry].size ?? null),
      expectedIn: inRows ? (settled ? "settled row" : "row") : "proof",
    };
  });
  const signedFiles = signedFilesOf(proof, reads).map(
    (file): Planned => ({ object: object(file.key, file.entry, file.id, file.sha256, file.size), expectedIn: "proof" }),
  );
  // The thumbnails whose SHA-256 the record keeps (sealer protocol 12, forger session 7, G6): other bytes there are a
  // finding, which takes the picture off the proof's page (src/verification/public-proof.ts) but not the verdict (a
  // thumbnail is not in the manifest): no file id, the file's evidence is its signed copy's.
  const thumbnails = (files ?? []).flatMap((file): Planned[] => {
    const thumbnail = sealedThumbnail(proof, file);
    if (thumbnail === null || thumbnail === "elsewhere" || !boundThumbnail(thumbnail)) return [];
    return [{ object: object(thumbnail.key, `thumbnails/${file.id}.webp`, null, thumbnail.sha256.toLowerCase(), thumbnail.size), expectedIn: "proof" }];
  });
  // A record that cannot be read: the record is the finding; without the sealed manifest, its files are re-hashed once it reads again.
  const unreadableRecord: Planned[] =
    files === null && recordKey !== null ? [{ object: object(recordKey, "record.json", null, null, null), expectedIn: "proof", readable: false }] : [];
  return { objects: [manifestObject, ...hashesObject, ...artifacts, ...signedFiles, ...thumbnails, ...unreadableRecord], obsolete };
}

/**
 * The objects of the proofs after the cursor, in order, from the cursor's offset within the first, within the budget
 * (at least one object, whatever its size). A proof whose objects are all planned is finished: its matches leave no
 * row (and the rows its earlier runs of this round marked restored go); one cut by the budget keeps its restored rows
 * and the cursor's offset says where to go on.
 */
async function plannedObjects(worker: WorkerContext, cursor: RehashCursor, proofs: ProofToRehash[], budget: RehashBudget) {
  const [reads, rows] = await Promise.all([
    readProofs(worker, proofs),
    objectChecksOf(
      worker.db.$client,
      proofs.map((proof) => proof.id),
    ),
  ]);
  const planned: Planned[] = [];
  const finished = new Set<string>();
  const earlierRestored: string[] = [];
  let position = cursor.position;
  let objectOffset = cursor.objectOffset;
  let bytes = 0;
  for (const [index, proof] of proofs.entries()) {
    const proofRows = rows.filter((row) => row.proofId === proof.id);
    const { objects, obsolete } = objectsOf(proof, reads[index]!, proofRows, cursor);
    // Only the first proof after the position can have been begun by an earlier run.
    const start = index === 0 ? cursor.objectOffset : 0;
    let taken = 0;
    for (const item of objects.slice(start)) {
      const size = item.object.size ?? 0;
      if (planned.length > 0 && (planned.length + 1 > budget.objects || bytes + size > budget.bytes)) break;
      planned.push(item);
      bytes += size;
      taken++;
    }
    if (start + taken < objects.length) {
      objectOffset = start + taken;
      break;
    }
    position = proof.seq;
    objectOffset = 0;
    finished.add(proof.id);
    const byProof = new Set(objects.filter((item) => item.expectedIn === "proof").map((item) => item.object.objectKey));
    earlierRestored.push(...proofRows.filter((row) => row.matched === true && byProof.has(row.objectKey)).map((row) => row.objectKey), ...obsolete);
  }
  return { planned, position, objectOffset, finished, earlierRestored };
}

/**
 * Re-hashes the objects of the next sealed proofs of the shard, in the order their sealing committed, from the
 * shard's one cursor, and records only what did not match; at the end of the proofs it starts the next round from
 * the first. A mismatch or a missing object turns its proof's public verdict to altered
 * (src/verification/verify-proof.ts; a thumbnail's takes its picture off the page instead), is listed by GET /admin/v1/altered-objects, and logs one
 * `sealed_object_altered` line for an alert to watch. Safe to run twice at once: both record the same findings, and
 * the cursor moves once.
 */
export async function rehashSealedObjects(worker: WorkerContext, now: Date, budget: RehashBudget = REHASH_BUDGET): Promise<RehashRun> {
  const d1 = worker.db.$client;
  const checkedAt = now.toISOString();
  let cursor = await rehashCursor(d1, checkedAt);
  let proofs = await sealedProofsAfter(worker.db, cursor.position, budget.proofs);
  let roundEnded = false;
  if (proofs.length === 0 && cursor.position > 0) {
    cursor = await startNextRound(d1, cursor, checkedAt);
    roundEnded = true;
    proofs = await sealedProofsAfter(worker.db, cursor.position, budget.proofs);
  }
  if (proofs.length === 0) return { proofs: 0, checked: 0, bytes: 0, mismatches: 0, roundEnded };
  const plan = await plannedObjects(worker, cursor, proofs, budget);
  const outcomes: RehashOutcome[] = [];
  for (const planned of plan.planned) outcomes.push(await rehash(worker.env, planned));
  const matchedKeys = (finished: boolean) =>
    outcomes
      .filter(
        (outcome) =>
          outcome.expectedIn === "proof" &&
          outcome.readable !== false &&
          outcome.foundSha256 !== null &&
          (outcome.object.expectedSha256 ?? outcome.foundSha256) === outcome.foundSha256,
      )
      .filter((outcome) => plan.finished.has(outcome.object.proofId) === finished)
      .map((outcome) => outcome.object.objectKey);
  const mismatches = await recordRehashRun(d1, {
    cursor,
    position: plan.position,
    objectOffset: plan.objectOffset,
    outcomes,
    cleared: [...matchedKeys(true), ...plan.earlierRestored],
    restored: matchedKeys(false),
    checkedAt,
  });
  for (const { object, foundSha256 } of mismatches) {
    console.error(
      JSON.stringify({
        level: "error",
        alert: "sealed_object_altered",
        proof_id: object.proofId,
        key: object.objectKey,
        entry: object.entry,
        expected: object.expectedSha256,
        found: foundSha256,
        checked_at: checkedAt,
      }),
    );
  }
  const bytes = outcomes.reduce((sum, outcome) => sum + (outcome.size ?? 0), 0);
  return { proofs: plan.finished.size, checked: outcomes.length, bytes, mismatches: mismatches.length, roundEnded };
}
