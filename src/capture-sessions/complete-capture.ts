import type { Env } from "../env.ts";
import type { Database } from "../db/client.ts";
import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { newId } from "../lib/ids.ts";
import { newShardedId, shardOfId } from "../db/shards.ts";
import { recordCompletion, recordRejection } from "../storage/capture-completion.ts";
import { captureSessionCompleted, captureSessionRejected } from "../events/catalogue.ts";
import { publishEvents } from "../webhooks/publish-events.ts";
import type { SessionRow } from "../storage/capture-sessions.ts";
import { findSessionById } from "../storage/capture-sessions.ts";
import { liveFilesOfSession } from "../storage/files.ts";
import { shotsPerStep } from "../storage/proofs-read.ts";
import { beforeFilesOrConflict } from "./comparison.ts";
import { objectHead, type ObjectStore } from "../storage/objects/bucket.ts";
import type { FileRow } from "../storage/rows.ts";

export interface CompletionResult {
  proof_id: string;
  session_id: string;
  redirect_url: string | null;
}

export interface CompletionDependencies {
  env: Env;
  db: Database;
  now: Date;
  /** "First completion wins" on a before proof: true when this session holds it. */
  claimBefore(beforeProofId: string, sessionId: string): Promise<boolean>;
  /** Gives a claimed before back, when the claiming session can never complete. */
  releaseBefore(beforeProofId: string, sessionId: string): Promise<void>;
  /** Hands the new proof to the sealing queue. */
  enqueueSealing(proofId: string): Promise<void>;
  /** Hands freshly recorded events to webhook delivery. */
  publishEvents(eventIds: string[]): Promise<void>;
}

/**
 * What completing a capture needs, wired to the platform in one place (as sealing's are beside its
 * consumer, src/sealing/consumer.ts): the before's lock, the sealing queue and webhook publication.
 */
export function completionDependencies({ env, db, now }: Pick<DomainContext, "env" | "db" | "now">): CompletionDependencies {
  const lock = (beforeId: string) => env.PROOF_LINK_LOCK.get(env.PROOF_LINK_LOCK.idFromName(beforeId));
  return {
    env,
    db,
    now,
    claimBefore: async (beforeId, sessionId) => (await lock(beforeId).claim(sessionId)).won,
    releaseBefore: async (beforeId, sessionId) => {
      await lock(beforeId).release(sessionId);
    },
    enqueueSealing: async (proofId) => {
      await env.SEALING_QUEUE.send({ proof_id: proofId });
    },
    publishEvents: (eventIds) => publishEvents({ env, db }, eventIds),
  };
}

function redirectUrl(session: SessionRow, proofId: string): string | null {
  if (session.returnUrl === null) return null;
  const url = new URL(session.returnUrl);
  url.searchParams.append("proof_id", proofId);
  url.searchParams.append("session_id", session.id);
  return url.toString();
}

/** Every declared file is in storage with its declared size; returns when storage observed each. */
async function storedFiles(store: ObjectStore, declared: FileRow[]): Promise<Map<string, string>> {
  const observed = new Map<string, string>();
  const incomplete: string[] = [];
  await Promise.all(
    declared.map(async (file) => {
      const head = await objectHead(store, file.originalKey);
      if (head === null || head.size !== file.size) incomplete.push(file.id);
      else observed.set(file.id, file.capturedAt ?? head.uploaded.toISOString());
    }),
  );
  if (incomplete.length > 0) throw new ApiError("upload_incomplete", { extra: { files: incomplete.sort() } });
  return observed;
}

async function checkSteps(db: Database, store: ObjectStore, session: SessionRow, declared: FileRow[]): Promise<void> {
  const template = session.templateSnapshot;
  const before = session.compareTo ? await beforeFilesOrConflict(shotsPerStep(db, store, session.compareTo)) : {};
  const wrong: string[] = [];
  for (const step of template.steps) {
    const count = declared.filter((file) => file.stepId === step.id).length;
    const minimum = Math.max(step.required ? step.min_count : 0, before[step.id] ?? 0);
    if (count < minimum || count > step.max_count || (!step.required && count > 0 && count < step.min_count)) wrong.push(step.id);
  }
  if (wrong.length > 0) throw new ApiError("missing_required_steps", { extra: { steps: wrong } });
}

/**
 * Finishes a capture. For an "after", the first completion wins the before (ProofLinkLock); a loser is
 * rejected with no proof and no credit used. The winner's proof, its files, the before's link, the
 * released session reservation (moved to the proof) and `capture_session.completed` are one batch.
 * Completing twice returns the same answer.
 */
export async function completeCapture({ ctx: deps, input }: { ctx: CompletionDependencies; input: { session: SessionRow } }): Promise<CompletionResult> {
  const { session } = input;
  if (session.status === "completed" && session.proofId !== null) {
    return { proof_id: session.proofId, session_id: session.id, redirect_url: redirectUrl(session, session.proofId) };
  }
  const declared = await liveFilesOfSession(deps.db, session.id);
  const observed = await storedFiles(deps.env, declared);
  await checkSteps(deps.db, deps.env, session, declared);
  if (session.compareTo !== null && !(await deps.claimBefore(session.compareTo, session.id))) {
    await rejectAfter(deps, session);
    // The same answer as every later call behind this link (src/capture-page/access.ts).
    throw new ApiError("compare_to_already_used", { extra: { locale: session.locale } });
  }
  // In the session's shard (its organization's, or a write shard, docs/adr/0070), which the id names for every route.
  const proofId = newShardedId("prf", shardOfId(session.id));
  const eventId = newId("evt");
  const completedAt = deps.now.toISOString();
  const db = deps.db;
  try {
    await recordCompletion(db, {
      session,
      proofId,
      completedAt,
      declaredFiles: declared.map((file) => ({ id: file.id, capturedAt: observed.get(file.id) })),
      event: captureSessionCompleted.build(
        { organizationId: session.organizationId, mode: session.mode, createdAt: completedAt },
        {
          session_id: session.id,
          proof_id: proofId,
          external_reference: session.externalReference,
          party: session.party,
          stage: session.stage,
          completed_at: completedAt,
        },
      ),
      eventId,
    });
  } catch (error) {
    // A concurrent completion of the same session won the race (the proof's session_id is unique, and
    // migration 0007 refuses a proof its session was not completed with).
    const current = await findSessionById(db, session.id);
    if (current?.status === "completed" && current.proofId !== null) return completeCapture({ ctx: deps, input: { session: current } });
    // The expiry sweep got there first: this session can never complete, so its claim on a before goes.
    if (current?.status === "expired") {
      if (session.compareTo !== null) await deps.releaseBefore(session.compareTo, session.id);
      throw new ApiError("capture_link_expired");
    }
    throw error;
  }
  await deps.enqueueSealing(proofId);
  await deps.publishEvents([eventId]);
  return { proof_id: proofId, session_id: session.id, redirect_url: redirectUrl(session, proofId) };
}

/** Rejects a losing "after": no proof, its reservation released, `capture_session.rejected` recorded with it. */
async function rejectAfter(deps: CompletionDependencies, session: SessionRow): Promise<void> {
  const rejectedAt = deps.now.toISOString();
  const db = deps.db;
  const eventId = newId("evt");
  const recorded = await recordRejection(db, {
    session,
    rejectedAt,
    event: captureSessionRejected.build(
      { organizationId: session.organizationId, mode: session.mode, createdAt: rejectedAt },
      {
        session_id: session.id,
        code: "compare_to_already_used",
        compare_to: session.compareTo,
        external_reference: session.externalReference,
        party: session.party,
        stage: session.stage,
        rejected_at: rejectedAt,
      },
    ),
    eventId,
  });
  if (recorded) await deps.publishEvents([eventId]);
}
