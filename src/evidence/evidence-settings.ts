import type { Env } from "../env.ts";
import type { HashName } from "../../shared/evidence-record.ts";
import { ARCHIVE_HASHES } from "../../shared/archive-timestamp-protocol.ts";

/** The renewal policy (docs/adr/0022), from the settings of src/config/env.ts. */
export interface EvidenceSettings {
  /** The digest algorithm new archive timestamps use; a record on another one is due for a hash-tree renewal. */
  hash: HashName;
  otherHashes: HashName[];
  /** A batch is timestamped when this many proofs are due, or when the oldest has waited `firstStampWithinMs`. */
  batchSize: number;
  firstStampWithinMs: number;
  renewalMarginMs: number;
}

const DAY_MS = 86_400_000;

/**
 * Proofs per archive timestamp and sweep run. A first stamp costs about 8 storage operations per proof
 * (its manifest, token, revocation index and files, writing its record), a renewal 2:
 * 80 proofs stay under 750 of a cron invocation's 1,000 subrequests, leaving room for larger chains.
 */
export const EVIDENCE_BATCH_SIZE = 80;

export function evidenceSettings(env: Env): EvidenceSettings {
  const hash = env.EVIDENCE_HASH_ALGORITHM ?? "SHA-256";
  return {
    hash,
    otherHashes: ARCHIVE_HASHES.filter((one) => one !== hash),
    batchSize: EVIDENCE_BATCH_SIZE,
    firstStampWithinMs: Number(env.EVIDENCE_FIRST_STAMP_WITHIN_MINUTES ?? "60") * 60_000,
    renewalMarginMs: Number(env.EVIDENCE_RENEWAL_MARGIN_DAYS ?? "180") * DAY_MS,
  };
}

/** The next renewal: a margin before the authority's certificate expires, and never sooner than a day from now. */
export function nextRenewalDue(settings: EvidenceSettings, authorityExpiresAt: string, now: Date): string {
  return new Date(Math.max(Date.parse(authorityExpiresAt) - settings.renewalMarginMs, now.getTime() + DAY_MS)).toISOString();
}
