import type { WorkerContext } from "../domain/context.ts";
import { deleteMovedFingerprints, type FingerprintsToMove, fingerprintsToMove } from "../storage/file-fingerprints.ts";
import { indexFiles } from "../storage/similarity-index.ts";

/**
 * Files moved per run (each minute): one statement reads their rows (six a photo), two delete them, and each of their
 * organizations' and modes' indexes is written once, so a run stays far within an invocation's queries and
 * subrequests; about 144,000 files a day a shard.
 */
export const FILES_MOVED_PER_RUN = 100;

/**
 * The backfill of docs/adr/0064: the prints sealed into the D1 table before the similarity index are written into
 * their organization's and mode's index, then deleted from the table. Until a file is deleted here, look-ups read it
 * here too; a run cut short between the two writes the same files again the next minute (the index replaces them).
 */
export async function moveFingerprintsToIndex({ env, db }: WorkerContext, _now: Date, filesPerRun = FILES_MOVED_PER_RUN): Promise<number> {
  const moving = await fingerprintsToMove(db, filesPerRun);
  const byIndex = new Map<string, FingerprintsToMove[]>();
  for (const moved of moving) {
    const scope = `${moved.organizationId}:${moved.mode}`;
    byIndex.set(scope, [...(byIndex.get(scope) ?? []), moved]);
  }
  for (const files of byIndex.values()) {
    const { organizationId, mode } = files[0]!;
    await indexFiles(
      env,
      { organizationId, mode },
      files.map(({ file }) => file),
    );
  }
  await deleteMovedFingerprints(
    db,
    moving.map(({ file }) => file.fileId),
  );
  return moving.length;
}
