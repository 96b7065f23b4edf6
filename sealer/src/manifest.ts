import { createHash } from "node:crypto";
import { canonicalJson } from "../../shared/canonical-json.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";

export interface SealedFileFacts {
  id: string;
  signed_sha256: string;
}

/**
 * The manifest a proof's timestamp covers: canonical JSON (sorted keys, no white space) of the proof's
 * organization-neutral references and of every file with both hashes. Files are listed in capture
 * order as the job gives them. `manifest_sha256` is the SHA-256 of exactly these bytes, published as is.
 */
export function buildManifest(job: SealJob, signed: Map<string, string>): { json: string; sha256: string } {
  const document = {
    version: 1,
    proof_id: job.proof.id,
    mode: job.proof.mode,
    external_reference: job.proof.external_reference,
    party: job.proof.party,
    stage: job.proof.stage,
    category: job.proof.category,
    location_reference: job.proof.location_reference,
    session_id: job.proof.session_id,
    compare_to: job.proof.compare_to,
    template_sha256: job.proof.template_sha256,
    files: job.files.map((file) => ({
      id: file.id,
      step_id: file.step_id,
      kind: file.kind,
      content_type: file.content_type,
      size: file.size,
      sha256: file.sha256.toLowerCase(),
      signed_sha256: signed.get(file.id) ?? null,
      captured_at: file.captured_at,
    })),
  };
  const json = canonicalJson(document);
  return { json, sha256: createHash("sha256").update(json, "utf8").digest("hex") };
}
