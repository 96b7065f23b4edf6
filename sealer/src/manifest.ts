import { createHash } from "node:crypto";
import { canonicalJson } from "../../shared/canonical-json.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";

/** What the sealer itself learnt of a file while sealing it, listed in the manifest beside the job's facts. */
export interface SealedFileFacts {
  signed_sha256: string;
  /**
   * The file arrived with earlier Content Credentials: its signed copy holds them as an ingredient, so
   * stripping the copy's C2PA block (APP11 in a JPEG) does not give back the bytes received.
   */
  prior_credentials: boolean;
}

/** The manifest's shape; version 1 (before the seal over the whole proof) had no organization, positions or p7s. */
export const MANIFEST_VERSION = 2;

/**
 * The manifest a proof's timestamp and its seal (manifest.p7s) cover: canonical JSON (sorted keys, no
 * white space) of everything a dispute turns on: the proof, its organization and mode, the references the
 * client gave, the template's hash, the "before" an "after" is compared to (by id and by the SHA-256 of its
 * own manifest.json, so that the pair cannot be recombined), and every file with its step, its position in
 * the step, both hashes and the time the service observed it. Files are listed in capture order as the job
 * gives them. `manifest_sha256` is the SHA-256 of exactly these bytes, published as is.
 */
export function buildManifest(job: SealJob, sealed: Map<string, SealedFileFacts>): { json: string; sha256: string } {
  const { proof } = job;
  const document = {
    version: MANIFEST_VERSION,
    proof_id: proof.id,
    organization_id: proof.organization_id,
    mode: proof.mode,
    external_reference: proof.external_reference,
    party: proof.party,
    stage: proof.stage,
    category: proof.category,
    location_reference: proof.location_reference,
    session_id: proof.session_id,
    template_sha256: proof.template_sha256,
    compare_to: comparedTo(proof),
    files: job.files.map((file) => {
      const facts = sealed.get(file.id);
      if (facts === undefined) throw new Error(`file ${file.id} is not sealed`);
      return {
        id: file.id,
        step_id: file.step_id,
        position: file.position,
        kind: file.kind,
        content_type: file.content_type,
        size: file.size,
        sha256: file.sha256.toLowerCase(),
        signed_sha256: facts.signed_sha256,
        captured_at: file.captured_at,
        prior_credentials: facts.prior_credentials,
      };
    }),
  };
  const json = canonicalJson(document);
  return { json, sha256: createHash("sha256").update(json, "utf8").digest("hex") };
}

function comparedTo(proof: SealJob["proof"]): { proof_id: string; manifest_sha256: string } | null {
  if (proof.compare_to === null) return null;
  // An "after" names its "before" by both: a job that lacks the hash is the Worker's bug, not a proof to seal.
  if (proof.compare_to_manifest_sha256 === null) throw new Error(`proof ${proof.id} compares to ${proof.compare_to} without its manifest_sha256`);
  return { proof_id: proof.compare_to, manifest_sha256: proof.compare_to_manifest_sha256.toLowerCase() };
}
