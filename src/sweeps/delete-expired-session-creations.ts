import type { WorkerContext } from "../domain/context.ts";
import { RETENTION_MS } from "../durable/api-account.ts";
import { deleteExpiredCreations } from "../storage/capture-sessions.ts";

export const CREATIONS_PER_ROUND = 1_000;
/** At most 10 statements a run: 10,000 a minute, far above the rate sessions are created at. */
const ROUNDS_PER_RUN = 10;

/**
 * Deletes the attempts recorded with their sessions (ADR 0046) once their 24 hours are over, as the
 * Idempotency-Key records are: past that a retry with the key creates a new session anyway.
 */
export async function deleteExpiredSessionCreations({ db }: WorkerContext, now: Date): Promise<number> {
  const before = new Date(now.getTime() - RETENTION_MS).toISOString();
  let deleted = 0;
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    const changed = await deleteExpiredCreations(db.$client, before, CREATIONS_PER_ROUND);
    deleted += changed;
    if (changed < CREATIONS_PER_ROUND) break;
  }
  return deleted;
}
