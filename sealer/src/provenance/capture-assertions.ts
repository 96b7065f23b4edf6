import type { SealJob, SealJobFile } from "../../../shared/sealer-protocol.ts";
import type { MediaFacts } from "./media-facts.ts";
import { reportedCapture, type Signal } from "./signals.ts";

const DIGITAL_CAPTURE = "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture";

/** The parent ingredient's label, referenced by the action that opened it. */
export const ORIGINAL_INGREDIENT = "original";

/**
 * The C2PA actions that match how the file reached us (docs/adr/0018). Only a shot the capture page
 * reported as taken with its camera, and carrying no earlier manifest, is `c2pa.created` with
 * `digitalCapture`, described as the page's report (a web page cannot attest the camera). Anything
 * else (a chosen file, an unknown method, a file with earlier Content Credentials) is an existing asset
 * the person supplied: `c2pa.opened` with the original as its `parentOf` ingredient.
 */
export function captureActions(file: SealJobFile, hasPrior: boolean) {
  const method = reportedCapture(file).method ?? "unknown";
  if (method === "camera" && !hasPrior) {
    return {
      opensOriginal: false,
      actions: [
        {
          action: "c2pa.created",
          digitalSourceType: DIGITAL_CAPTURE,
          description: "Reported by the capture web page as a shot from the device's camera; a web page cannot attest the camera.",
        },
      ],
    };
  }
  return {
    opensOriginal: true,
    actions: [
      {
        action: "c2pa.opened",
        description: `An existing file supplied through the capture page (reported method: ${method}).`,
        parameters: { ingredientIds: [ORIGINAL_INGREDIENT] },
      },
    ],
  };
}

/**
 * `com.proofseal.capture`: what the service observed (the bytes it received, when, its measure of the
 * device's clock, the capture page version it served) kept apart from what the device reported (named as reported, never as established),
 * and the integrity signals.
 */
export function captureAssertion(job: SealJob, file: SealJobFile, sniffedType: string, facts: MediaFacts, signals: Signal[]) {
  const measured = (file.capture_context ?? {}) as { clock_offset_ms?: unknown; capture_page_version?: unknown };
  return {
    proof_id: job.proof.id,
    session_id: job.proof.session_id,
    step_id: file.step_id,
    mode: job.proof.mode,
    external_reference: job.proof.external_reference,
    observed: {
      sha256: file.sha256.toLowerCase(),
      size: file.size,
      content_type: sniffedType,
      received_at: file.captured_at,
      clock_offset_ms: typeof measured.clock_offset_ms === "number" ? measured.clock_offset_ms : null,
      capture_page_version: typeof measured.capture_page_version === "string" ? measured.capture_page_version : null,
      decoded: { width: facts.width, height: facts.height, duration_ms: facts.duration_ms },
    },
    reported_by_device: reportedCapture(file),
    signals: signals.map((signal) => signal.code),
  };
}
