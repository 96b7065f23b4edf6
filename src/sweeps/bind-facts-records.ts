import type { WorkerContext } from "../domain/context.ts";
import { bindSealedRecord } from "../storage/proofs.ts";
import { fileRowsOf } from "../storage/proofs-read.ts";
import { factsRecordSha256, SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";
import { type ProofToRehash, proofsWithRecordFinding } from "../storage/sealed-object-checks.ts";

/**
 * The re-hash's pass over proofs sealed with a record of facts (`sealed_record` 1) before migration 0028 gave the
 * record a SHA-256 in D1 (docs/adr/0069, forger session 7, G12): each such record that gives its proof's files now
 * (of its shape, an entry for each of the proof's rows and for nothing else) is bound by the SHA-256 of its bytes,
 * only where D1 still holds none, so that every later read refuses other bytes as it does for a record written
 * since. A record missing or not of its shape is not bound: it stays unavailable (docs/adr/0068), the re-hash
 * records it as its proof's finding, and one `sealed_record_not_bound` line says so. Nor is one that reads again while
 * that finding is open (forger session 8, H1: deleted at its pass, put back forged, it was bound at the next): nothing
 * says it is the record sealing wrote, so it is `altered`, logged at each pass until an operator removes the finding
 * (docs/operations.md). A proof without file rows has no record read, nor bound. Returns the proofs with the SHA-256
 * D1 holds after the pass.
 */
export async function bindFactsRecords<Proof extends ProofToRehash>({ db, env }: WorkerContext, proofs: Proof[]): Promise<Proof[]> {
  const unbound = proofs.filter((proof) => proof.sealedRecord === 1 && proof.sealedRecordSha256 === null);
  if (unbound.length === 0) return proofs;
  const ids = unbound.map((proof) => proof.id);
  const [rows, seenUnavailable] = await Promise.all([fileRowsOf(db, ids), proofsWithRecordFinding(db.$client, ids)]);
  const bound = new Map<string, string | null>();
  // One record at a time: each may be up to READ_LIMITS.sealedRecord in memory.
  for (const proof of unbound) {
    const files = rows.get(proof.id);
    if (files === undefined) continue;
    try {
      const sha256 = await factsRecordSha256(env, proof, files);
      if (seenUnavailable.has(proof.id)) throw new SealedRecordUnavailable(proof.id, "altered", `proof ${proof.id}: back after its record.json finding`);
      bound.set(proof.id, await bindSealedRecord(db, proof.id, sha256));
    } catch (error) {
      // Whatever one record throws leaves it unbound, never the pass stopped (forger session 8, H0: the cursor stuck).
      const fault = error instanceof SealedRecordUnavailable ? error.fault : "unreadable";
      console.error(JSON.stringify({ level: "error", alert: "sealed_record_not_bound", proof_id: proof.id, fault }));
    }
  }
  return proofs.map((proof) => (bound.has(proof.id) ? { ...proof, sealedRecordSha256: bound.get(proof.id)! } : proof));
}
