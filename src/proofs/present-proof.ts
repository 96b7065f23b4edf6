import type { FileRow, ProofRow } from "../storage/rows.ts";
import { SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";
import type { StoredSignal } from "../../shared/integrity-signals.ts";
import { observedFacts, privateSignals, reportedByDevice } from "./file-facts.ts";

export function proofUrls(baseUrl: string, proofId: string) {
  const base = baseUrl.replace(/\/$/, "");
  return { verification_url: `${base}/p/${proofId}`, package_url: `${base}/v1/public/proofs/${proofId}/package` };
}

/** `signals`: the organization's view (names an earlier proof) or the public one (file-facts.ts). */
export function presentFile(file: FileRow, signals: (file: FileRow) => StoredSignal[] = privateSignals) {
  return {
    id: file.id,
    step_id: file.stepId,
    kind: file.kind,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
    signed_sha256: file.signedSha256,
    captured_at: file.capturedAt ?? file.createdAt,
    observed: observedFacts(file),
    reported_by_device: reportedByDevice(file),
    earlier_content_credentials: file.priorCredentials ?? null,
    signals: signals(file),
  };
}

export function presentTimestamp(proof: ProofRow) {
  if (proof.timestampGenTime === null) return null;
  return {
    gen_time: proof.timestampGenTime,
    qualified: proof.timestampQualified ?? false,
    authority: proof.timestampAuthority ?? "",
    serial: proof.timestampSerial ?? "",
    policy: proof.timestampPolicy ?? "",
  };
}

/**
 * The certificate that sealed the proof as a whole (manifest.p7s): what to look for in GET
 * /v1/public/trust-anchors; null while pending, failed, or sealed before the seal existed.
 */
export function presentSeal(proof: ProofRow) {
  if (proof.sealCertificateSha256 === null) return null;
  return { certificate_subject: proof.sealCertificateSubject ?? "", certificate_sha256: proof.sealCertificateSha256 };
}

/** The one place a proof row becomes its API shape (CONTRACT.md "Proof"). */
export function presentProof(proof: ProofRow, files: FileRow[] | SealedRecordUnavailable, baseUrl: string) {
  const unavailable = files instanceof SealedRecordUnavailable ? files : null;
  return {
    id: proof.id,
    mode: proof.mode,
    status: proof.status,
    external_reference: proof.externalReference,
    party: proof.party,
    stage: proof.stage,
    category: proof.category,
    location_reference: proof.locationReference,
    session_id: proof.sessionId,
    template_id: proof.templateId,
    compare_to: proof.compareTo,
    compared_by: proof.comparedBy,
    files: unavailable ? [] : (files as FileRow[]).map((file) => presentFile(file)),
    // Said rather than an empty list passing for a proof without files (forger session 5, F3).
    files_record: unavailable?.fault ?? null,
    timestamp: presentTimestamp(proof),
    manifest_sha256: proof.manifestSha256,
    seal: presentSeal(proof),
    created_at: proof.createdAt,
    sealed_at: proof.sealedAt,
    failure: proof.failureCode === null ? null : { code: proof.failureCode, message: proof.failureMessage ?? "" },
    ...proofUrls(baseUrl, proof.id),
  };
}
