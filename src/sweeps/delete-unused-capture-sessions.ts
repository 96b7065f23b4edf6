import type { WorkerContext } from "../domain/context.ts";
import { RETENTION_DAYS, retentionCutoff } from "../retention.ts";
import { deleteUnusedSessionRows, findUnusedSessions } from "../storage/unused-capture-sessions.ts";
import { deleteUnusedUploads } from "../storage/objects/capture-uploads.ts";

/** Sessions per round, and rounds per run: a run stays far below a Worker's 1,000 queries and subrequests. */
export const UNUSED_SESSIONS_PER_ROUND = 50;
const ROUNDS_PER_RUN = 4;

/**
 * Deletes capture sessions that never became a proof once their retention period has passed
 * (src/retention.ts), with everything they left in storage: unfinished multipart uploads are aborted and
 * the objects deleted first, then the rows, so a failure half-way leaves rows that the next run finds
 * again rather than objects nothing points to. Returns how many sessions were deleted.
 */
export async function deleteUnusedCaptureSessions({ env, db }: WorkerContext, now: Date): Promise<number> {
  const cutoff = retentionCutoff(now, RETENTION_DAYS.unusedCaptureSession);
  let deleted = 0;
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    const unused = await findUnusedSessions(db.$client, cutoff, UNUSED_SESSIONS_PER_ROUND);
    if (unused.sessionIds.length === 0) break;
    await deleteUnusedUploads(env, unused.files);
    deleted += await deleteUnusedSessionRows(db.$client, unused);
    if (unused.sessionIds.length < UNUSED_SESSIONS_PER_ROUND) break;
  }
  return deleted;
}
