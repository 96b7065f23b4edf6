import type { FileRow } from "../rows.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { type ManifestFile, readManifest } from "../../../shared/verification/sealed-manifest.ts";
import { bucket, type ObjectStore, proofArtifactKeys, sealedRecordKey } from "./bucket.ts";
import { SEALED_RECORD_SHAPES } from "./sealed-record-shape.ts";
import { ofStoredShape } from "./stored-shape.ts";
import { READ_LIMITS, readBoundedBytes } from "./bounded-read.ts";

/** The columns of a sealed file kept in the proof's record in R2 instead of D1 (migration 0024). */
export type RecordedFacts = Pick<FileRow, "captureContext" | "decoded" | "signals" | "priorCredentials" | "thumbnail">;

/** A sealed file whole, as the record holds it since docs/adr/0065: every column but the upload's progress. */
export type SealedFile = Omit<FileRow, "multipartUploadId" | "uploadedParts">;

/**
 * The record as stored: one entry per sealed file, by id. Written before docs/adr/0065, an entry holds only the
 * facts D1 no longer held (the file's row stayed in D1) and there is no `file_order`; since, each entry is the whole
 * file and `file_order` lists them in capture order (the file rows are deleted by the batch that seals the proof).
 */
interface SealedRecord {
  proof_id: string;
  run: string;
  files: Record<string, RecordedFacts | SealedFile>;
  file_order?: string[];
}

/**
 * Writes the run's record, the proof's files whole in capture order, before the batch that seals the proof and
 * deletes their rows, so that a sealed proof always has one: a Worker that dies in between leaves the proof pending
 * with its rows, and the run that seals it later writes its own.
 */
export async function storeSealedRecord(store: ObjectStore, proofId: string, run: string, files: SealedFile[]): Promise<string> {
  const record: SealedRecord = {
    proof_id: proofId,
    run,
    files: Object.fromEntries(files.map((file) => [file.id, file])),
    file_order: files.map((file) => file.id),
  };
  const bytes = new TextEncoder().encode(JSON.stringify(record));
  await bucket(store).put(sealedRecordKey(proofId, run), bytes, { httpMetadata: { contentType: "application/json" } });
  return sha256Hex(bytes);
}

/**
 * What was observed of a sealed record that cannot give the proof's files: gone; not what sealing wrote (other bytes
 * than the SHA-256 D1 holds, or a record lacking the proof's files); or not a record at all (not JSON, no files).
 */
export type SealedRecordFault = "missing" | "altered" | "unreadable";

/** What was observed of the record, in the words of a check's or a problem's detail ("the service's record of … <words>"). */
export const RECORD_FAULT_WORDS: Record<SealedRecordFault, string> = {
  missing: "is missing from its storage",
  altered: "is not the one sealing wrote (altered in storage)",
  unreadable: "cannot be read (damaged in storage)",
};

/**
 * A sealed proof's record in R2 cannot give its files (forger session 5, F3): the caller presents that as observed
 * (a failing check, a stable problem), never as a server error and never with files made up.
 */
export class SealedRecordUnavailable extends Error {
  readonly proofId: string;
  readonly fault: SealedRecordFault;

  constructor(proofId: string, fault: SealedRecordFault, message: string) {
    super(message);
    this.name = "SealedRecordUnavailable";
    this.proofId = proofId;
    this.fault = fault;
  }
}

/**
 * The proof's columns that say where its record is and which bytes it must have, whatever its version: NULL only for
 * a record sealed before migration 0028 that no re-hash has bound yet (docs/adr/0069).
 */
type RecordOf = { id: string; sealingRun: string | null; sealedRecordSha256: string | null };

/**
 * The run's record, which must be the bytes sealing wrote when D1 holds their hash: a record gone, replaced or not a
 * record of its version's shape is `SealedRecordUnavailable` (the re-hash records it as a finding of the proof), never
 * files presented from it. A version-1 record is read with the ids of the proof's files (`ownFiles`, its rows in D1).
 */
async function readSealedRecord(store: ObjectStore, proof: RecordOf, shape: RecordShape): Promise<{ record: SealedRecord; bytes: Uint8Array }> {
  const unavailable = (fault: SealedRecordFault, why: string) => new SealedRecordUnavailable(proof.id, fault, `proof ${proof.id}: ${why}`);
  if (proof.sealingRun === null) throw unavailable("missing", "sealed with a record but no sealing run");
  const bytes = await readBoundedBytes(store, sealedRecordKey(proof.id, proof.sealingRun), READ_LIMITS.sealedRecord);
  if (bytes === null) throw unavailable("missing", "its sealed record is missing from storage");
  // Larger than sealing ever writes (forger session 7, G11): not read, so not compared with D1's hash either.
  if (bytes === "too large") throw unavailable("unreadable", `its sealed record is larger than ${READ_LIMITS.sealedRecord} bytes`);
  if (proof.sealedRecordSha256 !== null && (await sha256Hex(bytes)) !== proof.sealedRecordSha256)
    throw unavailable("altered", "its sealed record is not the one sealing wrote");
  const record = parsedRecord(bytes, shape);
  if (record === null) throw unavailable("unreadable", "its sealed record is not a record of files");
  return { record, bytes };
}

/** How a record is read: version 2 holds the files whole; version 1 the facts of the proof's files, whose ids D1 holds. */
type RecordShape = { version: 2 } | { version: 1; ownFiles: ReadonlySet<string> };

/**
 * The record's JSON when it has its version's shape, each entry's values of the types sealing wrote; null for anything
 * else (a record written before migration 0028 has no hash in D1 to be checked against, forger session 7, G13). A
 * version-1 record holds an entry for each of the proof's files and nothing else: one with other entries is refused
 * before its entries are checked one by one (G11's residual: 1.5 million empty entries cost seconds a read).
 */
function parsedRecord(bytes: Uint8Array, shape: RecordShape): SealedRecord | null {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  if (shape.version === 1 && !onlyEntriesOf(json, shape.ownFiles)) return null;
  return ofStoredShape(SEALED_RECORD_SHAPES[shape.version], json) as unknown as SealedRecord | null;
}

/** Whether the record's `files` (when an object: its shape is checked next) names no entry but `ownFiles`. */
function onlyEntriesOf(json: unknown, ownFiles: ReadonlySet<string>): boolean {
  const files: unknown = typeof json === "object" && json !== null ? (json as { files?: unknown }).files : undefined;
  if (typeof files !== "object" || files === null) return true;
  const names = Object.keys(files);
  return names.length <= ownFiles.size && names.every((name) => ownFiles.has(name));
}

/** The record's entry for a file id, its own (never a key inherited by every object, such as "constructor"). */
const entryOf = (record: SealedRecord, id: string) => (Object.hasOwn(record.files, id) ? record.files[id] : undefined);

/**
 * The files of a proof whose record holds them whole (docs/adr/0065), in capture order. A sealed proof without its
 * record, or a record without its files, has lost what it sealed: `SealedRecordUnavailable`, never a proof shown as if
 * it had no files.
 * The record is an object nothing signs: what the seal binds of each file (its original and signed SHA-256, media type
 * and step) is taken from manifest.json when that is the sealed one, its SHA-256 the `manifest_sha256` D1 holds
 * (forger session 5, F1). A manifest altered or gone is the verdict's to report; the record's values stand then.
 */
export async function sealedRecordFiles(store: ObjectStore, proof: RecordOf & { manifestSha256: string | null }): Promise<FileRow[]> {
  const [{ record }, sealed] = await Promise.all([readSealedRecord(store, proof, { version: 2 }), sealedManifestFiles(store, proof)]);
  if (!Array.isArray(record.file_order))
    throw new SealedRecordUnavailable(proof.id, "altered", `proof ${proof.id}: its sealed record does not hold its files whole`);
  return record.file_order.map((id) => {
    const file = entryOf(record, id) as SealedFile | undefined;
    if (file === undefined) throw new SealedRecordUnavailable(proof.id, "altered", `proof ${proof.id}: file ${id} is missing from its sealed record`);
    const entry = sealed.get(id);
    const bound = entry && {
      sha256: entry.sha256,
      signedSha256: entry.signed_sha256 ?? file.signedSha256,
      contentType: entry.content_type,
      stepId: entry.step_id ?? file.stepId,
    };
    return { ...file, ...bound, multipartUploadId: null, uploadedParts: null };
  });
}

/** The files manifest.json lists, by id, when it is the manifest the proof was sealed with; none otherwise. */
async function sealedManifestFiles(
  store: ObjectStore,
  proof: { id: string; sealingRun: string | null; manifestSha256: string | null },
): Promise<Map<string, ManifestFile>> {
  const bytes =
    proof.manifestSha256 === null ? null : await readBoundedBytes(store, proofArtifactKeys(proof.id, proof.sealingRun).manifest, READ_LIMITS.manifest);
  // One larger than sealing ever writes is not the sealed one (forger session 7, G11): not read.
  if (bytes === null || bytes === "too large") return new Map();
  const manifest = (await sha256Hex(bytes)) === proof.manifestSha256 ? readManifest(bytes) : null;
  return new Map((manifest?.files ?? []).map((file) => [file.id, file]));
}

/**
 * The files of a proof sealed with a record of facts only (migration 0024, before docs/adr/0065), their rows from
 * D1 completed by the facts the record holds. A sealed proof without its record, or whose record lacks one of its
 * files, has lost part of what it sealed: `SealedRecordUnavailable`, never files shown with fewer facts or signals
 * (their D1 columns were emptied when the record was written).
 */
export async function withSealedRecord(store: ObjectStore, proof: RecordOf, files: FileRow[]): Promise<FileRow[]> {
  return (await factsRecordRead(store, proof, files)).files;
}

/**
 * The SHA-256 of a proof's record of facts as stored now, when it gives the proof's files (`files`, its rows in D1):
 * what the re-hash binds it with while D1 holds none (docs/adr/0069). `SealedRecordUnavailable` otherwise: a record
 * missing, too large, not of its shape or not holding exactly the proof's files is never bound.
 */
export async function factsRecordSha256(store: ObjectStore, proof: RecordOf, files: FileRow[]): Promise<string> {
  return sha256Hex((await factsRecordRead(store, proof, files)).bytes);
}

async function factsRecordRead(store: ObjectStore, proof: RecordOf, files: FileRow[]): Promise<{ files: FileRow[]; bytes: Uint8Array }> {
  const { record, bytes } = await readSealedRecord(store, proof, { version: 1, ownFiles: new Set(files.map((file) => file.id)) });
  const completed = files.map((file) => {
    const facts = entryOf(record, file.id);
    if (facts === undefined) throw new SealedRecordUnavailable(proof.id, "altered", `proof ${proof.id}: file ${file.id} is missing from its sealed record`);
    // Only the facts such a record holds: the row's other columns are D1's, never overridden by an unsigned object.
    const { captureContext, decoded, signals, priorCredentials, thumbnail } = facts;
    return { ...file, captureContext, decoded, signals, priorCredentials, thumbnail };
  });
  return { files: completed, bytes };
}
