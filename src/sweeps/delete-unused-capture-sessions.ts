import type { Env } from "../env.ts";
import { RETENTION_DAYS, retentionCutoff } from "../retention.ts";
import { deleteUnusedSessionRows, findUnusedSessions, type UnusedSessionFile } from "../storage/unused-capture-sessions.ts";

/** Sessions per round, and rounds per run: a run stays far below a Worker's 1,000 queries and subrequests. */
export const UNUSED_SESSIONS_PER_ROUND = 50;
const ROUNDS_PER_RUN = 4;
/** R2's delete() takes at most 1,000 keys per call. */
const R2_KEYS_PER_DELETE = 1000;

/**
 * Deletes capture sessions that never became a proof once their retention period has passed
 * (src/retention.ts), with everything they left in storage: unfinished multipart uploads are aborted and
 * the objects deleted first, then the rows, so a failure half-way leaves rows that the next run finds
 * again rather than objects nothing points to. Returns how many sessions were deleted.
 */
export async function deleteUnusedCaptureSessions(env: Env, now: Date): Promise<number> {
  const cutoff = retentionCutoff(now, RETENTION_DAYS.unusedCaptureSession);
  let deleted = 0;
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    const unused = await findUnusedSessions(env.DB, cutoff, UNUSED_SESSIONS_PER_ROUND);
    if (unused.sessionIds.length === 0) break;
    await deleteStoredUploads(env.FILES, unused.files);
    deleted += await deleteUnusedSessionRows(env.DB, unused);
    if (unused.sessionIds.length < UNUSED_SESSIONS_PER_ROUND) break;
  }
  return deleted;
}

async function deleteStoredUploads(bucket: R2Bucket, files: UnusedSessionFile[]): Promise<void> {
  for (const file of files) {
    if (file.multipartUploadId === null || file.status !== "declared") continue;
    try {
      await bucket.resumeMultipartUpload(file.originalKey, file.multipartUploadId).abort();
    } catch (error) {
      // Already completed or aborted, or gone with R2's own cleanup of unfinished uploads (7 days by
      // default): never worth keeping the session for, which would stall this sweep on it every minute.
      console.warn(JSON.stringify({ level: "warn", sweep: "delete-unused-capture-sessions", key: file.originalKey, message: (error as Error).message }));
    }
  }
  const keys = files.flatMap((file) => [file.originalKey, ...(file.signedKey === null ? [] : [file.signedKey])]);
  for (let start = 0; start < keys.length; start += R2_KEYS_PER_DELETE) {
    await bucket.delete(keys.slice(start, start + R2_KEYS_PER_DELETE));
  }
}
