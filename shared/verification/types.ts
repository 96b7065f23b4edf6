/**
 * The one verification of a proof (issue 24, docs/adr/0035): what the public JSON, the verification page,
 * VERIFY.md's wording and `proof-verify` all report, from the same inputs, under the same check names.
 * Nothing here depends on Node or on the Workers runtime (WebCrypto, pkijs and asn1js only).
 */
import type { RevocationChain } from "../revocation-data.ts";

/** What c2pa-rs said about one signed file, read by the caller (the core never reads C2PA itself). */
export interface C2paEvidence {
  /** c2pa-rs's validation state trusting only the pinned roots (the service root and the authority's root). */
  state: "Trusted" | "Valid" | "Invalid";
  /** The active manifest's failure codes. */
  failures: string[];
  /** The `com.proofseal.capture` assertion's content in the active manifest; null when the file carries none. */
  capture: Record<string, unknown> | null;
  /** The serial number (decimal) of the certificate that signed the active manifest. */
  signerSerial: string | null;
  /**
   * That certificate (DER), as the active manifest's COSE signature carries it (x5chain, the one c2pa-rs
   * validated the signature with); null when it could not be read. `Trusted` alone says the signer chains to one
   * of the roots given to c2pa-rs, which include the authority's (for the C2PA timestamps): the core requires
   * that this certificate's signature verifies under the service root's key.
   */
  signerCertificate: Uint8Array | null;
}

/** What the caller observed of one signed file, as it is now (in the package, or in storage). */
export interface FileEvidence {
  /** The signed file is there (in the package's `files/`, or in storage). */
  present: boolean;
  /** SHA-256 (lower-case hex) of the signed file as it is now; null when not hashed (yet). */
  sha256: string | null;
  /** When `sha256` was taken (ISO 8601): now for a package, the latest re-hash for a stored object. */
  checked_at: string | null;
  /** c2pa-rs's reading; null when not read in this environment. */
  c2pa: C2paEvidence | null;
  /** SHA-256 of a JPEG without its APP11 segments (the original the device sent); null when not computed. */
  original_sha256: string | null;
}

/** The SHA-256 (hex) of the roots a verifier obtained outside the package. */
export interface VerificationPins {
  /** The timestamp authority's root. */
  tsaRootSha256?: string;
  /** The service's signing root (the C2PA root that also issues the proof seal's certificate). */
  serviceRootSha256?: string;
}

export interface VerifyProofInput {
  /**
   * The package's small artifacts by their names in the ZIP: `manifest.json`, `manifest.p7s`, `proof.tsr`,
   * `chain.pem`, `c2pa-trust-anchor.pem`, `evidence-record.ers`, `revocation/…`. The signed files are not
   * needed here: `files` describes them.
   */
  entries: ReadonlyMap<string, Uint8Array>;
  /**
   * One entry per signed file the package (or storage) holds, by file id (`files/<id>.<ext>` in the ZIP),
   * plus, optionally, listed files found missing (`present: false`). An id the manifest does not list is
   * an extra file; a listed id absent here is a missing one.
   */
  files: ReadonlyMap<string, FileEvidence>;
  pins: VerificationPins;
  /** The time of verification: long-term trust (the authority's certificate expiry) is judged at it. */
  now: Date;
  /**
   * Where the files' evidence comes from: `package` (the bytes in hand) or `storage` (the service's re-hash of
   * the stored objects, when a changed hash means the stored object was altered after sealing).
   */
  source?: "package" | "storage";
  /**
   * Why the caller cannot say which signed files it holds (the service's record of a sealed proof's files is
   * missing or altered in storage): `files` is then empty, the files are not compared with the sealed list, and
   * the check `files_record` fails with this detail. Absent whenever the files' evidence is complete.
   */
  filesUnknown?: string;
}

export type CheckResult = "pass" | "fail" | "not_checked";

/**
 * One named check. Names are stable snake_case, per file suffixed with `:<file id>`: package_complete,
 * package_contents, manifest_seal, timestamp_imprint, timestamp_signature, timestamp_signer, timestamp_chain, tsa_root_pinned,
 * service_root_pinned, files_record (only when failing), files_listed, file_hash:<id>, file_c2pa:<id>, file_names_proof:<id>,
 * file_original:<id>, revocation, report, pair_report, evidence_record, long_term, mode.
 */
export interface VerificationCheck {
  name: string;
  result: CheckResult;
  detail: string;
}

/**
 * `verified`: every check holds with both roots pinned. `not_verified`: a check failed. `origin_not_established`:
 * everything holds but a root was not pinned, so nothing ties the package to the service or the authority.
 * `altered`: the only failures are stored files whose re-hash changed after sealing. `pending`: not sealed
 * yet (the caller's verdict: the core needs a sealed proof).
 */
export type Verdict = "verified" | "not_verified" | "origin_not_established" | "altered" | "pending";

/** What the RFC 4998 evidence record says, for the report. */
export interface EvidenceSummary {
  archive_timestamps: number;
  /** Hash-tree renewals start a new chain: more than one means the digest algorithm was replaced. */
  chains: number;
  first_gen_time: string | null;
  latest_gen_time: string | null;
  /** Who made the latest archive timestamp (its signer's common name: a test proof's says it is simulated). */
  latest_authority: string | null;
  /** When the latest archive timestamp's authority certificate expires (expired: renewal overdue). */
  latest_authority_expires: string | null;
  renewal_overdue: boolean;
}

/** Per chain of the revocation data captured at sealing: every CRL checked, some not captured (why), or none in the package. */
export type ChainRevocation = { status: "checked" | "unavailable" | "absent"; detail: string };
export type RevocationSummary = Record<RevocationChain, ChainRevocation>;

export interface VerificationResult {
  verdict: Verdict;
  /** A test proof (manifest mode "test"): no legal value, whatever the verdict. */
  test_mode: boolean;
  /** The verdict in one line of English, e.g. "VERIFIED (TEST PROOF, no legal value)" (verdictLine). */
  verdict_line: string;
  checks: VerificationCheck[];
  proof_id: string | null;
  /** 1: sealed before proofs were sealed as a whole (no manifest.p7s); 2: with manifest.p7s. */
  manifest_version: number | null;
  gen_time: string | null;
  manifest_sha256: string | null;
  /** The roots the package's chains ended at (what a verifier pins), and whether each was pinned. */
  tsa_root_sha256: string | null;
  service_root_sha256: string | null;
  pinned: { tsa: boolean; service: boolean };
  /** The proof seal's certificate (manifest.p7s), when the CMS could be read. */
  seal: { signer_subject: string; signer_not_after: string; signing_time: string | null } | null;
  /** The oldest `checked_at` of the files' evidence: when the files were last checked. */
  files_checked_at: string | null;
  /** The detail behind `evidence_record` and `revocation`: one step per archive timestamp or CRL. */
  evidence_record: { summary: EvidenceSummary | null; steps: VerificationCheck[] };
  revocation: { summary: RevocationSummary; steps: VerificationCheck[] };
}
