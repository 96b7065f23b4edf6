import type { Env } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { newId } from "../lib/ids.ts";
import type { SessionRow } from "../storage/capture-sessions.ts";
import { insertFile, liveFilesOfSession } from "../storage/files.ts";
import type { FileRow } from "../storage/rows.ts";
import { issueUploadUrl } from "../storage/objects/signed-urls.ts";
import { captureUploadKey } from "../storage/objects/bucket.ts";
import { startMultipartUpload } from "../storage/objects/capture-uploads.ts";
import { allowedTypes, maxBytes, UPLOAD_URL_LIFETIME_SECONDS } from "./media-rules.ts";
import type { DomainContext } from "../domain/context.ts";

export interface DeclaredFile {
  step_id: string;
  content_type: string;
  size: number;
  sha256: string;
  /** Optional: CONTRACT.md's body has only the four fields above. */
  capture?: {
    method: "camera" | "file";
    device_time: string;
    width?: number;
    height?: number;
    duration_ms?: number;
    geolocation?: { latitude: number; longitude: number; accuracy_m: number };
  };
}

/** Files above this size upload in parts, so that a dropped connection resumes at the last part. */
export const MULTIPART_THRESHOLD = 32 * 1024 * 1024;
export const PART_SIZE = 16 * 1024 * 1024;

/** The upload instructions of a declared file: signed PUTs that write exactly these bytes, in one part or several. */
export async function uploadInstructions(env: Env, file: FileRow, captureBaseUrl: string, token: string) {
  const grant = { key: file.originalKey, sha256: file.sha256, contentType: file.contentType, fileId: file.id, expiresInSeconds: UPLOAD_URL_LIFETIME_SECONDS };
  if (file.multipartUploadId === null) {
    const signed = await issueUploadUrl(env, { ...grant, size: file.size });
    return {
      parts: [{ part_number: 1, method: "PUT" as const, url: signed.url, headers: signed.headers, offset: 0, length: file.size }],
      complete: null,
      expires_at: signed.expiresAt,
      // CONTRACT.md's shape for a file sent in one request, beside `parts`.
      url: signed.url,
      method: "PUT" as const,
      headers: signed.headers,
    };
  }
  const count = Math.ceil(file.size / PART_SIZE);
  const parts = [];
  let expiresAt = "";
  for (let index = 0; index < count; index++) {
    const offset = index * PART_SIZE;
    const length = Math.min(PART_SIZE, file.size - offset);
    const signed = await issueUploadUrl(env, { ...grant, size: length, part: { uploadId: file.multipartUploadId, partNumber: index + 1 } });
    expiresAt = signed.expiresAt;
    parts.push({ part_number: index + 1, method: "PUT" as const, url: signed.url, headers: signed.headers, offset, length });
  }
  return {
    parts,
    complete: { method: "POST" as const, url: `${captureBaseUrl.replace(/\/$/, "")}/c/${token}/files/${file.id}/complete` },
    expires_at: expiresAt,
  };
}

/**
 * Declares one shot before its upload: checks it against the step (kind, type, size, count), records
 * the capture context with the phone clock's offset from ours, and answers with a signed upload URL.
 */
export async function declareFile({
  ctx,
  input: { session, token, file: input },
}: {
  ctx: Pick<DomainContext, "env" | "db" | "now">;
  input: { session: SessionRow; token: string; file: DeclaredFile };
}) {
  const { env, db, now } = ctx;
  const template = session.templateSnapshot;
  const step = template.steps.find((candidate) => candidate.id === input.step_id);
  if (step === undefined) throw new ApiError("step_not_found", { field: "/step_id" });
  if (!allowedTypes(step.kind).includes(input.content_type)) throw new ApiError("content_type_not_allowed", { field: "/content_type" });
  if (input.size > maxBytes(step.kind)) throw new ApiError("file_too_large", { field: "/size" });
  const sameStep = (await liveFilesOfSession(db, session.id)).filter((file) => file.stepId === step.id);
  if (sameStep.length >= step.max_count) throw new ApiError("too_many_files", { field: "/step_id" });
  const deviceTime = input.capture === undefined ? Number.NaN : Date.parse(input.capture.device_time);
  // A client following CONTRACT.md's four-field body says nothing of how the shot was taken.
  const capture = input.capture ?? { method: "unknown" as const };
  const id = newId("med");
  const row = {
    id,
    sessionId: session.id,
    proofId: null,
    stepId: step.id,
    kind: step.kind,
    contentType: input.content_type,
    size: input.size,
    sha256: input.sha256.toLowerCase(),
    status: "declared" as const,
    // Beside the device's report, two facts the service measures itself: the clock offset and the version of
    // the capture page it serves (the page is part of this deploy), kept apart when presented (ADR 0018).
    captureContext: { ...capture, clock_offset_ms: Number.isNaN(deviceTime) ? null : now.getTime() - deviceTime, capture_page_version: env.BUILD_COMMIT },
    originalKey: captureUploadKey(session.id, id),
    multipartUploadId: input.size > MULTIPART_THRESHOLD ? await startMultipartUpload(env, captureUploadKey(session.id, id), input.content_type) : null,
    uploadedParts: null,
    createdAt: now.toISOString(),
    capturedAt: null,
  };
  await insertFile(db, row);
  const stored = {
    ...row,
    signedKey: null,
    signedSha256: null,
    signedSize: null,
    signedCrc32: null,
    sniffedType: null,
    priorC2pa: null,
    priorCredentials: null,
    decoded: null,
    signals: null,
    thumbnail: null,
  };
  return { file_id: id, upload: await uploadInstructions(env, stored, env.CAPTURE_BASE_URL, token) };
}
