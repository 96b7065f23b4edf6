import { ApiError } from "../errors/api-error.ts";
import { forgetUploadedParts, markFileUploaded } from "../storage/files.ts";
import { deleteObjects, hashObject } from "../storage/objects/bucket.ts";
import { completeMultipartUpload } from "../storage/objects/capture-uploads.ts";
import type { FileRow } from "../storage/rows.ts";
import { PART_SIZE } from "./declare-file.ts";
import type { DomainContext } from "../domain/context.ts";

/**
 * An ETag as the R2 binding names a part: S3's `ETag` header, which the phone reports, quotes it
 * (`"3858f6…"`), the binding's `uploadPart` does not; the quotes are HTTP framing, not part of the tag.
 */
const bareEtag = (etag: string) =>
  etag
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");

/**
 * Assembles a multipart upload, then checks the whole object against the size and SHA-256 the phone
 * declared (hashed as a stream, never held in memory); other bytes are removed. The parts are those the
 * local storage route recorded, completed by the ETags the phone reports: in production the phone
 * writes each part straight to R2 and only it knows their ETags. Storage refuses a wrong ETag, and the
 * digest check refuses wrong bytes, so what the phone says cannot make a wrong file pass.
 */
export async function completeMultipart({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env" | "db">;
  input: { file: FileRow; reportedParts?: { part_number: number; etag: string }[] };
}): Promise<void> {
  const { env, db } = ctx;
  const { file, reportedParts: reported = [] } = input;
  if (file.multipartUploadId === null) throw new ApiError("capture_file_not_found", { detail: "This file uploads in one part." });
  if (file.status === "uploaded") return;
  const byNumber = new Map(reported.map((part) => [part.part_number, part.etag]));
  for (const part of file.uploadedParts ?? []) byNumber.set(part.part_number, part.etag);
  const parts = [...byNumber].map(([part_number, etag]) => ({ part_number, etag })).sort((a, b) => a.part_number - b.part_number);
  const expected = Math.ceil(file.size / PART_SIZE);
  if (parts.length !== expected || parts.some((part, index) => part.part_number !== index + 1)) {
    throw new ApiError("upload_incomplete", { extra: { files: [file.id] } });
  }
  try {
    await completeMultipartUpload(
      env,
      file.originalKey,
      file.multipartUploadId,
      parts.map((part) => ({ partNumber: part.part_number, etag: bareEtag(part.etag) })),
    );
  } catch {
    // A part storage does not hold under that ETag: the phone sends its parts again.
    await forgetUploadedParts(db, file.id);
    throw new ApiError("upload_incomplete", { extra: { files: [file.id] } });
  }
  const object = await hashObject(env, file.originalKey);
  if (object === null) throw new ApiError("upload_incomplete", { extra: { files: [file.id] } });
  if (object.size !== file.size || object.sha256 !== file.sha256) {
    await deleteObjects(env, [file.originalKey]);
    await forgetUploadedParts(db, file.id);
    throw new ApiError(object.size !== file.size ? "upload_size_mismatch" : "upload_checksum_mismatch");
  }
  await markFileUploaded(db, file.id, object.uploaded.toISOString());
}
