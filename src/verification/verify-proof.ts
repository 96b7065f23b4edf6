import type { Env } from "../env.ts";
import type { Database } from "../db/client.ts";
import { shardDatabase, shardOfId } from "../db/shards.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import { readSealedArtifacts } from "../storage/objects/sealed-artifacts.ts";
import { RECORD_FAULT_WORDS, SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";
import { readStoredReports } from "../storage/objects/reports.ts";
import { type ProofReportRow, reportsKeptWith } from "../storage/proof-reports.ts";
import { type ProofRehashes, proofRehashes } from "../storage/sealed-object-checks.ts";
import { listTrustAnchors, type TrustAnchorRow } from "../storage/trust-anchors.ts";
import { rootFingerprints } from "../../shared/trust-anchors.ts";
import { type FileEvidence, type Verdict, type VerificationCheck, type VerificationPins, verifyProof } from "../../shared/verification/verify-proof-core.ts";

/** The core's one-line verdict, for VERIFY.md: the Worker reaches the core through this module only. */
export { verdictLine } from "../../shared/verification/verify-proof-core.ts";

/** The public verdict of a proof: the one verification core's, and the status the contract names. */
export interface Verification {
  /** The contract's status: `valid` only for `verified`; `invalid` for any other verdict of a sealed proof. */
  status: "valid" | "invalid" | "pending" | "failed";
  /** The core's verdict (`pending` also while sealing, `not_verified` for a proof that could not be sealed). */
  verdict: Verdict;
  test_mode: boolean;
  /** The oldest latest re-hash of the proof's signed files (their sealing for files not re-hashed yet); null unless sealed. */
  files_checked_at: string | null;
  checks: VerificationCheck[];
}

/**
 * What the service knows of each signed file now, as the verification core takes it: the latest re-hash of the
 * stored object (src/sweeps/rehash-sealed-objects.ts, docs/adr/0066): as its row says when it has one (another hash, or
 * missing, or restored before the round finished the proof; and when), else the sealed hash as of the start of the round that last re-hashed the proof (or its sealing, if later), or, before its
 * first re-hash, the hash the sealer took when it stored it (checked at sealing). C2PA is not read in the Worker (not_checked).
 */
export function storedFileEvidence(proof: ProofRow, files: FileRow[], rehashes: ProofRehashes): Map<string, FileEvidence> {
  const byFile = new Map(rehashes.findings.filter((check) => check.fileId !== null).map((check) => [check.fileId!, check]));
  const evidence = new Map<string, FileEvidence>();
  for (const file of files) {
    if (file.signedKey === null) continue;
    const row = byFile.get(file.id);
    const seen =
      row !== undefined
        ? { present: row.foundSha256 !== null, sha256: row.foundSha256, checked_at: row.lastCheckedAt }
        : { present: true, sha256: file.signedSha256, checked_at: rehashes.checkedAt ?? proof.sealedAt };
    evidence.set(file.id, { ...seen, c2pa: null, original_sha256: null });
  }
  return evidence;
}

/**
 * The roots the service publishes (GET /v1/public/trust-anchors) as the pins of its own verdict: for each
 * chain, the published root of the proof's mode that the package's root is, or else the current one (so a
 * chain.pem or trust anchor replaced in storage by another root fails its pin). None published: not pinned.
 */
async function publishedPins(anchors: TrustAnchorRow[], mode: ProofRow["mode"], entries: Map<string, Uint8Array>): Promise<VerificationPins> {
  const decode = (name: string) => new TextDecoder().decode(entries.get(name) ?? new Uint8Array());
  const pin = async (kind: TrustAnchorRow["kind"], pem: string) => {
    const published = anchors.filter((anchor) => anchor.kind === kind && anchor.mode === mode).map((anchor) => anchor.sha256);
    const inPackage = (await rootFingerprints(pem)).map((root) => root.sha256);
    return published.find((sha256) => inPackage.includes(sha256)) ?? published[0];
  };
  const [tsaRootSha256, serviceRootSha256] = await Promise.all([pin("timestamp_authority", decode("chain.pem")), pin("c2pa", decode("c2pa-trust-anchor.pem"))]);
  return { ...(tsaRootSha256 ? { tsaRootSha256 } : {}), ...(serviceRootSha256 ? { serviceRootSha256 } : {}) };
}

/** A suffix that changes when a report of the proof is made, for ETags and cache keys of what shows the verdict and the reports. */
export function reportsVersion(reports: Pick<ProofReportRow, "sha256">[]): string {
  return reports.map((report) => `.r${report.sha256.slice(0, 12)}`).join("");
}

/**
 * The database of the shard a proof lives in, which its id names (docs/adr/0062): its reports, its objects' checks
 * and the roots its shard's proofs were sealed under are there. Callers without a request (the report's job) have
 * only the proof.
 */
export function proofDatabase(env: Env, proof: Pick<ProofRow, "id">): Database {
  return shardDatabase(env, shardOfId(proof.id));
}

const NOT_REHASHED: ProofRehashes = { checkedAt: null, findings: [] };

/** What the re-hash sweep last found for a proof's objects (nothing before it is sealed). */
export async function latestRehashes(env: Env, proof: ProofRow): Promise<ProofRehashes> {
  return proof.status === "sealed" ? proofRehashes(proofDatabase(env, proof).$client, proof.id) : NOT_REHASHED;
}

/** A suffix that changes whenever a re-hash of the proof's objects is recorded, for ETags and cache keys of what shows the verdict. */
export function rehashVersion(rehashes: ProofRehashes): string {
  const times = [rehashes.checkedAt, ...rehashes.findings.map((check) => check.lastCheckedAt)].flatMap((time) => (time === null ? [] : [Date.parse(time)]));
  if (times.length === 0) return "";
  const latest = Math.max(...times);
  return `.rh${(rehashes.checkedAt === null ? 0 : Date.parse(rehashes.checkedAt)).toString(36)}-${latest.toString(36)}-${rehashes.findings.filter((check) => check.matched === false).length}`;
}

/** A proof's files as read from storage, or what was observed of the sealed record that should have given them. */
export type ObservedFiles = FileRow[] | SealedRecordUnavailable;

/** A suffix naming what was observed of a lost sealed record, for ETags and cache keys of what shows the verdict ("" while it gives the files). */
export const recordVersion = (files: ObservedFiles): string => (files instanceof SealedRecordUnavailable ? `.rec-${files.fault}` : "");

/** The files a presentation lists: none when the record could not give them (never files made up). */
export const listedFiles = (files: ObservedFiles): FileRow[] => (files instanceof SealedRecordUnavailable ? [] : files);

/**
 * Verifies a sealed proof on every request from what is stored now, with the one verification core
 * (shared/verification/, docs/adr/0035): its small artifacts and its sealed reports as they are in R2, each
 * signed file as the latest re-hash found it (no file's bytes are read here, docs/adr/0037), pinned to the
 * roots the service publishes. Nothing is kept: an object altered after sealing turns the verdict at its next re-hash.
 * A sealed record that could not give the files fails the check `files_record`: never verified, no file compared.
 */
export async function proofVerification(env: Env, proof: ProofRow, files: ObservedFiles, rehashes?: ProofRehashes): Promise<Verification> {
  const test_mode = proof.mode === "test";
  if (proof.status !== "sealed")
    return { status: proof.status, verdict: proof.status === "pending" ? "pending" : "not_verified", test_mode, files_checked_at: null, checks: [] };
  const db = proofDatabase(env, proof);
  // The pins are the roots recorded in the proof's own shard, where its sealing recorded the ones it chains to.
  const [entries, rehashed, anchors, reports] = await Promise.all([
    readSealedArtifacts(env, proof),
    rehashes ?? proofRehashes(db.$client, proof.id),
    listTrustAnchors(db),
    reportsKeptWith(db, proof.id),
  ]);
  // The sealed reports as stored now (docs/adr/0056): the core checks them as it checks a package's.
  for (const [name, bytes] of await readStoredReports(env, reports)) entries.set(name, bytes);
  const unavailable = files instanceof SealedRecordUnavailable ? files : null;
  const result = await verifyProof({
    entries,
    files: storedFileEvidence(proof, unavailable ? [] : (files as FileRow[]), rehashed),
    pins: await publishedPins(anchors, proof.mode, entries),
    now: new Date(),
    source: "storage",
    ...(unavailable
      ? {
          filesUnknown: `the service's record of this proof's files ${RECORD_FAULT_WORDS[unavailable.fault]}: which files it holds, and their fingerprints, cannot be checked or shown`,
        }
      : {}),
  });
  return {
    status: result.verdict === "verified" ? "valid" : "invalid",
    verdict: result.verdict,
    // The mode D1 holds, whatever a stored manifest says: a test proof is never shown as live.
    test_mode: test_mode || result.test_mode,
    files_checked_at: result.files_checked_at,
    checks: result.checks,
  };
}
