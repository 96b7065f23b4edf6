import type { ProofRow } from "../storage/rows.ts";
import type { ObjectStore } from "../storage/objects/bucket.ts";
import { EVIDENCE_RECORD_NAME } from "../storage/objects/bucket.ts";
import { evidenceRecordMetadata } from "../storage/objects/sealed-artifacts.ts";

/** What the public JSON says of a proof's evidence record (docs/adr/0022). */
export interface PublicEvidenceRecord {
  /** The package's entry holding the DER EvidenceRecord. */
  file: typeof EVIDENCE_RECORD_NAME;
  archive_timestamps: number;
  /** The latest archive timestamp's gen_time: when the evidence was last renewed. */
  last_renewed_at: string;
  /** Who timestamped it: a test proof's record is renewed by the simulated test authority only. */
  authority: string;
}

/**
 * The proof's evidence record as the renewal sweep last wrote it, from its storage metadata (one HEAD, no
 * read of the record): null before its first archive timestamp.
 */
export async function publicEvidenceRecord(store: ObjectStore, proof: Pick<ProofRow, "id" | "sealingRun" | "status">): Promise<PublicEvidenceRecord | null> {
  if (proof.status !== "sealed") return null;
  const metadata = await evidenceRecordMetadata(store, proof);
  if (!metadata?.renewed_at) return null;
  return {
    file: EVIDENCE_RECORD_NAME,
    archive_timestamps: Number(metadata.archive_timestamps ?? "0"),
    last_renewed_at: metadata.renewed_at,
    authority: metadata.authority ?? "",
  };
}

/** A suffix that changes with each renewal, for ETags and cache keys of what includes the record. */
export const evidenceVersion = (evidence: PublicEvidenceRecord | null) => (evidence ? `.er${evidence.archive_timestamps}` : "");
