import type { WorkerContext } from "../domain/context.ts";
import { type ArchiveTimestamper, sealerArchiveTimestamper } from "../evidence/archive-timestamp-client.ts";
import { evidenceSettings, nextRenewalDue, type EvidenceSettings } from "../evidence/evidence-settings.ts";
import { claimDueEvidence, dueEvidenceByMode, recordRenewals, type ClaimedEvidence, type EvidenceMode } from "../storage/evidence-records.ts";
import type { ObjectStore } from "../storage/objects/bucket.ts";
import { evidenceObjects, readEvidenceRecord, storeEvidenceRecord } from "../storage/objects/sealed-artifacts.ts";
import {
  buildHashTree,
  decodeEvidenceRecord,
  encodeEvidenceRecord,
  nextLeaf,
  withArchiveTimeStamp,
  type EvidenceRecord,
} from "../../shared/evidence-record.ts";
import { hex } from "../../shared/timestamp-check.ts";

/** A claim outlasts a slow run (R2 and one authority call); a crashed run's proofs come back after it. */
const CLAIM_MS = 10 * 60_000;

/**
 * RFC 4998 evidence records (docs/adr/0022): proofs due for an archive timestamp (their first one, a
 * timestamp renewal before the latest authority certificate expires, or a hash-tree renewal when the
 * configured digest algorithm changed) are gathered per mode into batches; each batch gets ONE timestamp
 * from the sealer over the root of a hash tree of their leaves, and each proof's record gains that
 * archive timestamp with its reduced hash tree. A mode's first stamps are worked when a full batch is due
 * or the oldest has waited the first-stamp delay, so a quiet service still pays one call per delay, not per
 * proof; renewals as soon as they are due.
 */
export async function renewEvidenceRecords(
  worker: WorkerContext,
  now: Date,
  timestamper: ArchiveTimestamper = sealerArchiveTimestamper(worker.env),
): Promise<number> {
  const settings = evidenceSettings(worker.env);
  const nowIso = now.toISOString();
  let renewed = 0;
  let failure: unknown = null;
  for (const due of await dueEvidenceByMode(worker.db.$client, nowIso, settings.otherHashes)) {
    // First stamps wait to gather a batch; renewals are due together already (a batch shares its due date),
    // and a hash-tree renewal is due at once.
    const waited = due.oldestFirstDueAt === null ? 0 : now.getTime() - Date.parse(due.oldestFirstDueAt);
    if (due.renewals === 0 && due.due < settings.batchSize && waited < settings.firstStampWithinMs) continue;
    // One mode's failure (its authority unreachable) does not hold the other's batch back; its proofs stay claimed.
    try {
      renewed += await renewBatch(worker, settings, due.mode, now, timestamper);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== null) throw failure;
  return renewed;
}

async function renewBatch(worker: WorkerContext, settings: EvidenceSettings, mode: EvidenceMode, now: Date, timestamper: ArchiveTimestamper): Promise<number> {
  const { env, db } = worker;
  const claim = crypto.randomUUID();
  const claimed = await claimDueEvidence(db.$client, {
    mode,
    now: now.toISOString(),
    until: new Date(now.getTime() + CLAIM_MS).toISOString(),
    claim,
    limit: settings.batchSize,
    otherHashes: settings.otherHashes,
  });
  // A proof whose artifacts cannot be read stays claimed (back in CLAIM_MS) without holding up the others.
  const prepared = await Promise.allSettled(
    claimed.map(async (proof) => {
      const record = await currentRecord(env, proof);
      return {
        proof,
        record,
        leaf: await nextLeaf(record, settings.hash, () => evidenceObjects(env, { id: proof.proofId, sealingRun: proof.sealingRun })),
      };
    }),
  );
  const ready = prepared.flatMap((outcome, index) => {
    if (outcome.status === "fulfilled") return [outcome.value];
    console.error(
      JSON.stringify({ level: "error", sweep: "renew-evidence-records", proof_id: claimed[index]!.proofId, message: (outcome.reason as Error).message }),
    );
    return [];
  });
  if (ready.length === 0) return 0;
  const tree = await buildHashTree(
    settings.hash,
    ready.map((one) => one.leaf),
  );
  const stamp = await timestamper({ mode, hash: settings.hash, root: hex(tree.root), leaves: ready.length });
  const token = Uint8Array.from(atob(stamp.token_base64), (char) => char.charCodeAt(0));
  await Promise.all(
    ready.map(({ proof, record: previous }, index) => {
      const record = withArchiveTimeStamp(previous, { digestAlgorithm: settings.hash, reducedHashtree: tree.reduced[index]!, timeStamp: token });
      return storeEvidenceRecord(env, proof.targetKey, encodeEvidenceRecord(record), {
        renewed_at: stamp.gen_time,
        archive_timestamps: String(record.chains.flat().length),
        authority: stamp.authority,
      });
    }),
  );
  await recordRenewals(db.$client, {
    claim,
    renewed: ready.map(({ proof }) => ({ proofId: proof.proofId, recordKey: proof.targetKey })),
    hash: settings.hash,
    renewedAt: stamp.gen_time,
    authorityExpiresAt: stamp.signer_not_after,
    dueAt: nextRenewalDue(settings, stamp.signer_not_after, now),
  });
  console.log(JSON.stringify({ level: "info", sweep: "renew-evidence-records", mode, proofs: ready.length, gen_time: stamp.gen_time }));
  return ready.length;
}

/** The proof's record so far (null before its first archive timestamp). */
async function currentRecord(store: ObjectStore, proof: ClaimedEvidence): Promise<EvidenceRecord | null> {
  if (proof.recordKey === null) return null;
  return decodeEvidenceRecord(await readEvidenceRecord(store, proof.recordKey));
}
