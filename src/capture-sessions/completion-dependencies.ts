import type { DomainContext } from "../domain/context.ts";
import { publishEvents } from "../events/publish.ts";
import type { CompletionDependencies } from "./complete-capture.ts";

/**
 * What completing a capture needs, wired to the platform in one place (as sealing's are in
 * src/sealing/dependencies.ts): the before's lock, the sealing queue and webhook publication.
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
