import type { WorkerContext } from "../domain/context.ts";
import { hashObject, type ObjectStore } from "../storage/objects/bucket.ts";
import { enrolSealedObjects, objectsDueForRehash, recordRehashes, type RehashOutcome, type SealedObject } from "../storage/sealed-object-checks.ts";

/**
 * What one run (each minute) may do, well within a cron invocation's limits (docs/adr/0037): at most
 * `objects` objects read from R2 and one batch of updates (2 D1 queries, of the 1,000 an invocation may make),
 * and no further object once `bytes` have been hashed (SHA-256 streamed, so memory stays flat; about 0.3 s of
 * CPU per 128 MiB). One object larger than the budget is still hashed alone, or it would never be.
 * `enrolProofs`: sealed proofs whose objects are listed per run (3 queries and a batch).
 */
export interface RehashBudget {
  objects: number;
  bytes: number;
  enrolProofs: number;
}

export const REHASH_BUDGET: RehashBudget = { objects: 100, bytes: 128 * 1024 * 1024, enrolProofs: 20 };

export interface RehashRun {
  enrolled: number;
  checked: number;
  bytes: number;
  mismatches: number;
}

/** The SHA-256 of an object as stored, streamed; null when it is not there. */
async function rehash(store: ObjectStore, object: SealedObject): Promise<RehashOutcome> {
  const stored = await hashObject(store, object.objectKey);
  return stored === null ? { object, foundSha256: null, size: null } : { object, foundSha256: stored.sha256, size: stored.size };
}

/**
 * Re-hashes the sealed objects checked longest ago (never checked first), so that every object comes round
 * again after (objects / objects per run) minutes, and records what it found. A mismatch or a missing
 * object turns its proof's public verdict to altered (src/verification/verify-proof.ts), is listed by
 * GET /admin/v1/altered-objects, and logs one `sealed_object_altered` line for an alert to watch. Safe to run
 * twice at once: both record the same findings.
 */
export async function rehashSealedObjects({ env, db }: WorkerContext, now: Date, budget: RehashBudget = REHASH_BUDGET): Promise<RehashRun> {
  const enrolled = await enrolSealedObjects(db.$client, budget.enrolProofs);
  const due = await objectsDueForRehash(db.$client, budget.objects);
  const outcomes: RehashOutcome[] = [];
  let bytes = 0;
  for (const object of due) {
    if (outcomes.length > 0 && bytes + (object.size ?? 0) > budget.bytes) break;
    const outcome = await rehash(env, object);
    outcomes.push(outcome);
    bytes += outcome.size ?? 0;
  }
  const checkedAt = now.toISOString();
  const mismatches = await recordRehashes(db.$client, outcomes, checkedAt);
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
  return { enrolled, checked: outcomes.length, bytes, mismatches: mismatches.length };
}
