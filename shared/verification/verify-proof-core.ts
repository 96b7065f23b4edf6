import { checkTimestamp, pemCertificatesDer, type TimestampCheck } from "../timestamp-check.ts";
import { rootFingerprints } from "../trust-anchors.ts";
import { checkRevocation } from "./check-revocation.ts";
import { sha256Hex } from "./digest.ts";
import { fileChecks, filesListed, serviceRootCertificates } from "./file-checks.ts";
import { checkManifestSeal } from "./manifest-seal.ts";
import { packageContents } from "./package-contents.ts";
import { checkReport, REPORT_ENTRIES } from "./report-check.ts";
import { readManifest, type SealedManifest } from "./sealed-manifest.ts";
import type { CheckResult, EvidenceSummary, Verdict, VerificationCheck, VerificationResult, VerifyProofInput } from "./types.ts";
import { verifyEvidenceRecord } from "./verify-evidence-record.ts";

export type * from "./types.ts";
export { C2PA_CONTENT_TYPES } from "./file-checks.ts";

/** The artifacts every package holds; a version-2 manifest adds manifest.p7s, its seal. */
const REQUIRED = ["manifest.json", "proof.tsr", "chain.pem", "c2pa-trust-anchor.pem"];
const SEAL_ENTRY = "manifest.p7s";
/**
 * How far a token's gen_time may be after `now`. An authority's clock is within a second (ETSI EN 319 421 asks
 * it of qualified ones), but the verifier's may lag: a laptop off NTP drifts by minutes, and a proof verified
 * just after sealing must not fail for it. Beyond this, the token was made by a key whose clock was set ahead
 * (a token dated in the future would otherwise verify today, and be "valid" at a date nobody has reached).
 */
const CLOCK_SKEW_MS = 5 * 60_000;

const VERDICT_WORDS: Record<Verdict, string> = {
  verified: "VERIFIED",
  not_verified: "NOT VERIFIED",
  origin_not_established: "ORIGIN NOT ESTABLISHED (consistent, but a root was not pinned)",
  altered: "ALTERED (a stored file changed after sealing)",
  pending: "PENDING (not sealed yet)",
};

/** The verdict in one line of English; a test proof's always says so. */
export function verdictLine(verdict: Verdict, testMode: boolean): string {
  return `${VERDICT_WORDS[verdict]}${testMode ? " (TEST PROOF, no legal value)" : ""}`;
}

/**
 * Any failure: not verified, or altered when the only failures are stored files found changed by the service's
 * re-hash. No failure but a root not pinned: the origin is not established (a forger's own CA and authority
 * give a package consistent with itself). Verified only with both roots pinned and every check holding.
 */
function verdictOf(checks: VerificationCheck[], source: VerifyProofInput["source"]): Verdict {
  const failed = checks.filter((check) => check.result === "fail");
  if (failed.length > 0) return source === "storage" && failed.every((check) => check.name.startsWith("file_hash:")) ? "altered" : "not_verified";
  const pinned = checks.filter((check) => check.name === "tsa_root_pinned" || check.name === "service_root_pinned");
  return pinned.length === 2 && pinned.every((check) => check.result === "pass") ? "verified" : "origin_not_established";
}

/** One check summing up detailed steps (the evidence record's archive timestamps, the revocation CRLs). */
function summed(steps: VerificationCheck[]): CheckResult {
  return steps.some((step) => step.result === "fail") ? "fail" : "pass";
}

/**
 * long_term: while the authority's certificate is valid the token stands on its own; after it expired, only an
 * evidence record covering the manifest, whose latest renewal is valid now, proves the token was made while
 * it was valid (a leaked expired key could otherwise date anything).
 */
function longTerm(stamp: TimestampCheck, evidence: EvidenceSummary | null, evidenceResult: CheckResult, now: Date): VerificationCheck {
  const check = (result: CheckResult, detail: string): VerificationCheck => ({ name: "long_term", result, detail });
  const expires = stamp.signerNotAfter;
  if (expires === null) return check("not_checked", "the token names no authority certificate");
  if (Date.parse(expires) > now.getTime())
    return check("pass", `the authority's certificate is valid until ${expires}: until then the token stands on its own`);
  if (evidence === null)
    return check(
      "fail",
      `the authority's certificate expired on ${expires} and the package has no evidence record (evidence-record.ers): nothing proves the token was made while it was valid`,
    );
  if (evidenceResult !== "pass") return check("fail", `the authority's certificate expired on ${expires} and the evidence record does not hold`);
  if (evidence.renewal_overdue)
    return check(
      "fail",
      `the authority's certificate expired on ${expires} and the evidence record's latest renewal (${evidence.latest_gen_time}) rests on a certificate that expired on ${evidence.latest_authority_expires}: renewal is overdue`,
    );
  return check(
    "pass",
    `the authority's certificate expired on ${expires}; the evidence record proves the token existed before, renewed ${evidence.latest_gen_time} under a certificate valid until ${evidence.latest_authority_expires}`,
  );
}

/**
 * The one verification of a proof (issue 24, docs/adr/0035), trusting nothing in the package but the pinned
 * roots: the package's artifacts and the files' evidence to named checks and one verdict. The same function
 * answers the public JSON and page (files' evidence from the service's re-hash of the stored objects) and
 * `proof-verify` (from the bytes of the package).
 */
export async function verifyProof(input: VerifyProofInput): Promise<VerificationResult> {
  const { entries, files, pins, now } = input;
  const checks: VerificationCheck[] = [];
  const add = (name: string, result: CheckResult | boolean, detail: string) =>
    checks.push({ name, result: typeof result === "boolean" ? (result ? "pass" : "fail") : result, detail });
  const text = (name: string) => new TextDecoder().decode(entries.get(name) ?? new Uint8Array());
  const result: VerificationResult = {
    verdict: "not_verified",
    test_mode: false,
    verdict_line: "",
    checks,
    proof_id: null,
    manifest_version: null,
    gen_time: null,
    manifest_sha256: null,
    tsa_root_sha256: null,
    service_root_sha256: null,
    pinned: { tsa: !!pins.tsaRootSha256, service: !!pins.serviceRootSha256 },
    seal: null,
    files_checked_at: null,
    evidence_record: { summary: null, steps: [] },
    revocation: { summary: { tsa: absentRevocation("tsa"), c2pa: absentRevocation("c2pa"), seal: absentRevocation("seal") }, steps: [] },
  };
  const finish = () => {
    result.verdict = verdictOf(checks, input.source);
    result.verdict_line = verdictLine(result.verdict, result.test_mode);
    return result;
  };

  const manifestBytes = entries.get("manifest.json");
  const tsr = entries.get("proof.tsr");
  const manifest: SealedManifest | null = manifestBytes ? readManifest(manifestBytes) : null;
  const required = manifest && manifest.version >= 2 ? [...REQUIRED, SEAL_ENTRY] : REQUIRED;
  const missing = required.filter((name) => !entries.has(name));
  add(
    "package_complete",
    missing.length === 0 && (manifest !== null || !manifestBytes),
    missing.length > 0 ? `missing: ${missing.join(", ")}` : manifest === null ? "manifest.json is not a proof manifest" : `${required.join(", ")} present`,
  );
  if (!manifestBytes || !tsr || manifest === null) return finish();
  checks.push(await packageContents(manifest, entries));
  result.manifest_sha256 = await sha256Hex(manifestBytes);
  result.proof_id = manifest.proof_id;
  result.manifest_version = manifest.version;
  result.test_mode = manifest.mode === "test";

  // The token over manifest.json (the one RFC 3161 check, shared/timestamp-check.ts), its chain at gen_time.
  const stamp = await checkTimestamp(tsr, manifestBytes, text("chain.pem"));
  result.gen_time = stamp.genTime;
  add(
    "timestamp_imprint",
    stamp.imprintMatches,
    stamp.imprintMatches ? `the token covers manifest.json (SHA-256 ${result.manifest_sha256})` : "the token does not cover this manifest.json",
  );
  add(
    "timestamp_signature",
    stamp.granted && stamp.signatureValid,
    !stamp.granted
      ? "proof.tsr holds no granted token"
      : stamp.signatureValid
        ? `the authority's signature over token ${stamp.serial} verifies`
        : "the token's signature does not verify (or its signer certificate is absent)",
  );
  add(
    "timestamp_signer",
    stamp.signerCertifiedForTimestamping && stamp.signerCertificateBound,
    stamp.signerCertifiedForTimestamping && stamp.signerCertificateBound
      ? "signer certified for timestamping only (critical EKU) and named by the ESS signing-certificate attribute"
      : "the token's signer is not certified for timestamping only, or the ESS signing-certificate attribute does not name it",
  );
  const ahead = stamp.genTime === null ? 0 : Date.parse(stamp.genTime) - now.getTime();
  add(
    "timestamp_chain",
    stamp.chainTrusted && ahead <= CLOCK_SKEW_MS,
    !stamp.chainTrusted
      ? `the authority's certificate does not chain to a root of chain.pem at gen_time ${stamp.genTime ?? "?"}`
      : ahead > CLOCK_SKEW_MS
        ? `the token's gen_time ${stamp.genTime} is after the time of verification ${now.toISOString()} (by more than ${CLOCK_SKEW_MS / 60_000} minutes of clock skew): no authority made it honestly, its clock was set ahead`
        : `the authority's certificate chains to a root at gen_time ${stamp.genTime}`,
  );
  result.tsa_root_sha256 = stamp.rootCertificate ? await sha256Hex(stamp.rootCertificate) : null;
  const notPinned = "no pin given: the root comes from the package itself, which proves nothing by itself";
  const tsaPin = pins.tsaRootSha256?.toLowerCase();
  if (!tsaPin) add("tsa_root_pinned", "not_checked", notPinned);
  else
    add(
      "tsa_root_pinned",
      result.tsa_root_sha256 === tsaPin,
      result.tsa_root_sha256 === tsaPin
        ? "the authority's root is the pinned one"
        : `the authority's root ${result.tsa_root_sha256 ?? "(none)"} is not the pinned ${tsaPin}`,
    );

  // The service root: the package's c2pa-trust-anchor.pem, trusted only when it is the pinned root alone.
  const serviceRoots = await rootFingerprints(text("c2pa-trust-anchor.pem"));
  const servicePin = pins.serviceRootSha256?.toLowerCase();
  const anchors = (servicePin ? serviceRoots.filter((root) => root.sha256 === servicePin) : serviceRoots).flatMap((root) => pemCertificatesDer(root.pem));
  if (!servicePin) add("service_root_pinned", "not_checked", notPinned);
  else {
    const pinned = serviceRoots.length === 1 && anchors.length === 1;
    add(
      "service_root_pinned",
      pinned,
      pinned
        ? "the service root (c2pa-trust-anchor.pem) is the pinned one"
        : `the package's service root ${serviceRoots.map((root) => root.sha256).join(", ") || "(none)"} is not the pinned ${servicePin}`,
    );
  }

  // The seal over the whole proof (manifest.p7s), judged at the token's gen_time.
  const p7s = entries.get(SEAL_ENTRY);
  let sealCertificate: Uint8Array | null = null;
  let sealedRevocationFiles: ReadonlyMap<string, string> | null = null;
  if (manifest.version < 2) add("manifest_seal", "fail", "sealed before proofs were sealed as a whole: this version-1 package has no manifest.p7s");
  else if (!p7s) add("manifest_seal", "fail", "manifest.p7s, the seal over the whole proof, is missing");
  else {
    const seal = await checkManifestSeal(p7s, manifestBytes, anchors, stamp.genTime ? new Date(stamp.genTime) : null);
    result.seal = seal.seal;
    sealCertificate = seal.certificate;
    sealedRevocationFiles = seal.revocationFiles;
    add("manifest_seal", seal.ok, seal.detail);
    if (seal.root) result.service_root_sha256 = await sha256Hex(seal.root);
  }
  result.service_root_sha256 ??= serviceRoots[0]?.sha256 ?? null;

  // The files: the sealed list against what is here, then each file against its entry.
  // Files nobody can list are never compared as missing: what fails is the record that should have listed them.
  const roots = serviceRootCertificates(anchors);
  if (input.filesUnknown !== undefined) {
    add("files_record", "fail", input.filesUnknown);
    add("files_listed", "not_checked", `the ${manifest.files.length} files of the sealed manifest were not compared with the files stored`);
  } else {
    checks.push(filesListed(manifest, files));
    for (const file of manifest.files) checks.push(...(await fileChecks(manifest, file, files.get(file.id), roots)));
  }
  const checkedAt = [...files.values()].flatMap((evidence) => (evidence.present && evidence.checked_at ? [evidence.checked_at] : [])).sort();
  result.files_checked_at = checkedAt[0] ?? null;

  // Revocation at gen_time from the CRLs captured at sealing (docs/adr/0022).
  const revocation = await checkRevocation(entries, {
    genTime: stamp.genTime,
    tsaSigner: stamp.signerCertificate,
    tsaRoot: stamp.rootCertificate,
    c2paRoots: anchors,
    c2paSignerSerials: [...files.values()].flatMap((evidence) => (evidence.present && evidence.c2pa?.signerSerial ? [evidence.c2pa.signerSerial] : [])),
    indexRequired: manifest.version >= 2,
    seal: sealCertificate,
    sealedFiles: sealedRevocationFiles,
  });
  result.revocation = { summary: revocation.summary, steps: revocation.checks };
  const listed = (of: CheckResult) =>
    revocation.checks
      .filter((step) => step.result === of)
      .map((step) => `${step.name} ${step.detail}`)
      .join("; ");
  // A CRL that could not be had at sealing is said, never failed (docs/adr/0040); a missing index fails.
  if (revocation.checks.length === 0) add("revocation", "not_checked", `${revocation.summary.tsa.detail}; ${revocation.summary.c2pa.detail}`);
  else if (summed(revocation.checks) === "fail") add("revocation", "fail", `revocation data fails: ${listed("fail")}`);
  else if (revocation.checks.some((step) => step.result === "not_checked"))
    add("revocation", "not_checked", `not revoked at gen_time where a CRL was captured; ${listed("not_checked")}`);
  else
    add(
      "revocation",
      "pass",
      `not revoked at gen_time: authority ${revocation.summary.tsa.status}, C2PA signer ${revocation.summary.c2pa.status}, proof seal ${revocation.summary.seal.status === "absent" ? "checked by the C2PA signer's CRL" : revocation.summary.seal.status}${sealedRevocationFiles ? "; the revocation data is the one manifest.p7s seals" : ""}`,
    );

  // The sealed PDF reports the package carries (docs/adr/0044): this proof's, sealed by the same certificate.
  for (const name of REPORT_ENTRIES)
    checks.push(
      await checkReport(name, {
        manifest,
        entries,
        sealCertificate,
        anchors,
        genTime: stamp.genTime,
        tsaRootSha256: result.tsa_root_sha256,
      }),
    );

  // The evidence record (RFC 4998), and what it must prove once the authority's certificate has expired.
  const evidence = await verifyEvidenceRecord(entries, text("chain.pem"), { tsr, manifest: manifestBytes, genTime: stamp.genTime }, pins, now);
  result.evidence_record = { summary: evidence.summary, steps: evidence.checks };
  const evidenceResult: CheckResult = evidence.checks.length === 0 ? "not_checked" : summed(evidence.checks);
  add(
    "evidence_record",
    evidenceResult,
    evidenceResult === "not_checked"
      ? "no evidence record (evidence-record.ers) in this package: a package downloaded about an hour after sealing carries one"
      : evidenceResult === "pass"
        ? `${evidence.summary?.archive_timestamps} archive timestamp(s) cover the manifest, the token and the revocation data, latest ${evidence.summary?.latest_gen_time}`
        : `the evidence record does not hold: ${evidence.checks
            .filter((step) => step.result === "fail")
            .map((step) => `${step.name} ${step.detail}`)
            .join("; ")}`,
  );
  checks.push(longTerm(stamp, evidence.summary, evidenceResult, now));

  add(
    "mode",
    manifest.mode === "test" || manifest.mode === "live",
    manifest.mode === "test"
      ? "a TEST proof: sealed by the service's test identity, no legal value"
      : manifest.mode === "live"
        ? "a live proof"
        : `unknown mode ${JSON.stringify(manifest.mode)}`,
  );
  return finish();
}

function absentRevocation(chain: string) {
  return { status: "absent" as const, detail: `no revocation data for the ${chain} chain in this package` };
}
