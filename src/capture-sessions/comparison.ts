import type { Database } from "../db/client.ts";
import type { ApiCaller, Env } from "../env.ts";
import { type ShardCode, shardOfId } from "../db/shards.ts";
import { callerDatabaseOfId } from "../storage/caller-database.ts";
import { ApiError } from "../errors/api-error.ts";
import { findProof } from "../storage/proofs.ts";
import { findSessionById } from "../storage/capture-sessions.ts";
import { findMatchingTemplate } from "../storage/capture-templates.ts";
import type { TemplateSnapshot } from "../capture-templates/snapshot.ts";
import { RECORD_FAULT_WORDS, SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";

/**
 * What an "after" reads of its before's files (its shots per step, its thumbnails): when the service's record of them
 * is missing or altered in storage, `409 sealed_record_unavailable`, since the after cannot be held to shots nobody
 * can list (forger session 5, F3); it answers again once the operator restores the record.
 */
export async function beforeFilesOrConflict<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (!(error instanceof SealedRecordUnavailable)) throw error;
    throw new ApiError("sealed_record_unavailable", {
      detail: `The service's record of the before's files ${RECORD_FAULT_WORDS[error.fault]}: this after cannot be compared with its shots.`,
    });
  }
}

/**
 * Preconditions of an "after": the "before" exists in this organization and mode, is not itself an
 * "after", is sealed, has the same reference and party, and has no partner yet. The "after" uses the
 * before's template; `stage`/`category` selecting another active template is a mismatch. The after is
 * written to its before's shard, not the organization's write shard (docs/adr/0070), so that the pair stays
 * two rows of one database: the before is read in the shard its id names, when that is one of the
 * organization's (else it is unknown, as any other id; a shard the caller's cached list lacks is looked up in
 * the list again, as by-id reads do); templates are read in the home shard (`db`).
 */
export async function beforeTemplateForAfter(
  { db, env, caller }: { db: Database; env: Env; caller: ApiCaller },
  input: { compare_to: string; external_reference: string; party: string; stage?: string; category?: string },
): Promise<{ snapshot: TemplateSnapshot; shard: ShardCode }> {
  const field = "/compare_to";
  const beforeDb = await callerDatabaseOfId(env, caller, db, input.compare_to);
  if (beforeDb === null) throw new ApiError("compare_to_not_found", { field });
  const before = await findProof(beforeDb, caller.organizationId, caller.mode, input.compare_to);
  if (before === null) throw new ApiError("compare_to_not_found", { field });
  if (before.compareTo !== null) throw new ApiError("compare_to_is_after", { field });
  if (before.status !== "sealed") throw new ApiError("compare_to_not_sealed", { field });
  if (before.externalReference !== input.external_reference || before.party !== input.party) {
    throw new ApiError("compare_to_mismatch", { field });
  }
  if (before.comparedBy !== null) throw new ApiError("compare_to_already_used", { field });
  const beforeSession = await findSessionById(beforeDb, before.sessionId);
  if (beforeSession === null) throw new Error(`proof ${before.id} has no capture session`);
  const snapshot = beforeSession.templateSnapshot;
  if (input.stage !== undefined || input.category !== undefined) {
    const selected = await findMatchingTemplate(db, caller.organizationId, caller.mode, input.stage ?? null, input.category ?? null);
    if (selected !== null && selected.id !== snapshot.id) throw new ApiError("compare_template_mismatch", { field });
  }
  return { snapshot, shard: shardOfId(input.compare_to) };
}
