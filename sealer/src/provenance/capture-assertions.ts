import type { FrameFingerprint, PerceptualFingerprint, SealJob, SealJobFile } from "../../../shared/sealer-protocol.ts";
import type { ManifestDefinition } from "../c2pa/c2pa.ts";
import type { MediaFacts } from "./media-facts.ts";
import { reportedCapture, type PriorState, type Signal } from "./signals.ts";

/** The parent ingredient's label, referenced by the action that opened it. */
const ORIGINAL_INGREDIENT = "original";

/** The signer's own claims about one file: what the service observed (C2PA 2.x created assertion). */
export const CAPTURE_ASSERTION = "com.proofseal.capture";
/** What the device and the file's own metadata say, which the service cannot check (C2PA 2.x gathered assertion). */
export const REPORTED_ASSERTION = "com.proofseal.reported";

/**
 * The signer's action: it opened the asset it received, the original kept as its `parentOf` ingredient
 * (docs/adr/0036). Whatever made the bytes (a camera, an editor, a generator) is not something the
 * service saw, so the signer asserts no `c2pa.created` and no IPTC digitalSourceType: the device's
 * report of how the file was made is in the gathered {@link REPORTED_ASSERTION}, and an earlier
 * manifest, kept whole in the parent ingredient, still says what its own signer claimed.
 */
const OPENED = {
  actions: [
    {
      action: "c2pa.opened",
      description:
        "The file as the service received it through the capture page; how it was made is reported by the device (com.proofseal.reported), not attested.",
      parameters: { ingredientIds: [ORIGINAL_INGREDIENT] },
    },
  ],
};

/**
 * `com.proofseal.capture`: which proof the file belongs to, at its top level (the verifier compares
 * each field with the sealed manifest.json), what the service observed (the bytes it received, when,
 * its measure of the device's clock, the capture page version it served, what it decoded, the photo's
 * perceptual fingerprint from its decoded pixels, null when not decoded; a video's, its frames', docs/adr/0059), and
 * the integrity signals the sealer computed.
 */
export function captureAssertion(
  job: SealJob,
  file: SealJobFile,
  sniffedType: string,
  facts: MediaFacts,
  signals: Signal[],
  fingerprint: PerceptualFingerprint | null,
  frameFingerprints: FrameFingerprint[] = [],
) {
  const measured = (file.capture_context ?? {}) as { clock_offset_ms?: unknown; capture_page_version?: unknown };
  return {
    proof_id: job.proof.id,
    session_id: job.proof.session_id,
    organization_id: job.proof.organization_id,
    mode: job.proof.mode,
    external_reference: job.proof.external_reference,
    party: job.proof.party,
    stage: job.proof.stage,
    step_id: file.step_id,
    position: file.position,
    compare_to: job.proof.compare_to,
    observed: {
      sha256: file.sha256.toLowerCase(),
      size: file.size,
      content_type: sniffedType,
      received_at: file.captured_at,
      clock_offset_ms: typeof measured.clock_offset_ms === "number" ? measured.clock_offset_ms : null,
      capture_page_version: typeof measured.capture_page_version === "string" ? measured.capture_page_version : null,
      decoded: { width: facts.width, height: facts.height, duration_ms: facts.duration_ms },
      fingerprint,
      ...(file.kind === "video" ? { frame_fingerprints: frameFingerprints } : {}),
    },
    signals: signals.map((signal) => signal.code),
  };
}

/**
 * `com.proofseal.reported`: what the device reported with the shot (method, device time, dimensions,
 * duration, location) as it sent it, and what the file's EXIF says (maker, model, original date) as
 * written by whatever wrote the file. Gathered, so C2PA attributes none of it to the signer.
 */
export function reportedAssertion(file: SealJobFile, facts: MediaFacts) {
  return { reported_by_device: reportedCapture(file), exif: facts.exif };
}

/**
 * What the signer says of one file: the opening action and the capture assertion are its own (created),
 * the device's report is gathered; the original is the parent ingredient, its earlier manifest read when
 * it may carry one (`prior`, as the sealer found it).
 */
export function sealedFileManifest(
  job: SealJob,
  file: SealJobFile,
  sniffedType: string,
  facts: MediaFacts,
  signals: Signal[],
  prior: PriorState,
  fingerprint: PerceptualFingerprint | null,
  frameFingerprints: FrameFingerprint[] = [],
): Pick<ManifestDefinition, "assertions" | "parent"> {
  return {
    assertions: [
      { label: "c2pa.actions", data: OPENED, created: true },
      { label: CAPTURE_ASSERTION, data: captureAssertion(job, file, sniffedType, facts, signals, fingerprint, frameFingerprints), created: true },
      { label: REPORTED_ASSERTION, data: reportedAssertion(file, facts), created: false },
    ],
    parent: { label: ORIGINAL_INGREDIENT, readManifest: prior !== "none" },
  };
}
