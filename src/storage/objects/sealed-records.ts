import type { FileRow } from "../rows.ts";
import { bucket, type ObjectStore, sealedRecordKey } from "./bucket.ts";

/** The columns of a sealed file kept in the proof's record in R2 instead of D1 (migration 0024). */
export type RecordedFacts = Pick<FileRow, "captureContext" | "decoded" | "signals" | "priorCredentials" | "thumbnail">;

/** The record as stored: one entry per sealed file, by id, with the facts D1 no longer holds. */
interface SealedRecord {
  proof_id: string;
  run: string;
  files: Record<string, RecordedFacts>;
}

/**
 * Writes the run's record before the batch that seals the proof, so that a sealed proof always has one: a
 * Worker that dies in between leaves the proof pending, and the run that seals it later writes its own.
 */
export async function storeSealedRecord(store: ObjectStore, proofId: string, run: string, files: (RecordedFacts & { id: string })[]): Promise<void> {
  const record: SealedRecord = {
    proof_id: proofId,
    run,
    files: Object.fromEntries(
      files.map((file) => [
        file.id,
        {
          captureContext: file.captureContext,
          decoded: file.decoded,
          signals: file.signals,
          priorCredentials: file.priorCredentials,
          thumbnail: file.thumbnail,
        },
      ]),
    ),
  };
  await bucket(store).put(sealedRecordKey(proofId, run), JSON.stringify(record), { httpMetadata: { contentType: "application/json" } });
}

/**
 * The files of a proof sealed with a record, with the facts the record holds. A sealed proof without its
 * record, or whose record lacks one of its files, has lost part of what it sealed: that is an error, never
 * files shown with fewer facts or signals (their D1 columns were emptied when the record was written).
 */
export async function withSealedRecord(store: ObjectStore, proof: { id: string; sealingRun: string | null }, files: FileRow[]): Promise<FileRow[]> {
  if (proof.sealingRun === null) throw new Error(`proof ${proof.id}: sealed with a record but no sealing run`);
  const object = await bucket(store).get(sealedRecordKey(proof.id, proof.sealingRun));
  if (object === null) throw new Error(`proof ${proof.id}: its sealed record is missing from storage`);
  const record = (await object.json()) as SealedRecord;
  return files.map((file) => {
    const facts = record.files[file.id];
    if (facts === undefined) throw new Error(`proof ${proof.id}: file ${file.id} is missing from its sealed record`);
    return { ...file, ...facts };
  });
}
