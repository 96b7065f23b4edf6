import type { CaptureSessionRow } from "../storage/rows.ts";

/** A session as `GET /v1/capture-sessions/{id}` shows it: never its link, of which only the hash is kept. */
export function presentCaptureSession(session: CaptureSessionRow) {
  return {
    id: session.id,
    mode: session.mode,
    status: session.status,
    external_reference: session.externalReference,
    party: session.party,
    stage: session.stage,
    category: session.category,
    template_id: session.templateId,
    locale: session.locale,
    location_reference: session.locationReference,
    return_url: session.returnUrl,
    compare_to: session.compareTo,
    created_at: session.createdAt,
    expires_at: session.expiresAt,
    completed_at: session.completedAt,
    proof_id: session.proofId,
  };
}

/** A session just created, with its link: the one time the token is known and shown. */
export function presentCreatedCaptureSession(
  created: { session: Pick<CaptureSessionRow, "id" | "mode" | "expiresAt"> & { compareTo?: string | null }; token: string },
  captureBaseUrl: string,
) {
  return {
    id: created.session.id,
    capture_url: `${captureBaseUrl.replace(/\/$/, "")}/c/${created.token}`,
    expires_at: created.session.expiresAt,
    mode: created.session.mode,
    compare_to: created.session.compareTo ?? null,
  };
}
