import type { Database } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { fileStatus, markFileDeleted } from "../storage/files.ts";
import { deleteObjects, type ObjectStore } from "../storage/objects/bucket.ts";
import { abortMultipartUpload } from "../storage/objects/capture-uploads.ts";
import type { FileRow } from "../storage/rows.ts";
import type { DomainContext } from "../domain/context.ts";

/**
 * Removes a declared file from the capture (the shot was deleted or retaken): marked deleted first, so
 * that the storage route refuses its URLs from then on, then its bytes go, and an unfinished multipart
 * upload is aborted so that the parts already sent, and any sent later, are not kept.
 */
export async function removeCaptureFile({ ctx, input: { file } }: { ctx: Pick<DomainContext, "env" | "db">; input: { file: FileRow } }): Promise<void> {
  const { env, db } = ctx;
  await markFileDeleted(db, file.id);
  if (file.multipartUploadId !== null && file.status === "declared") {
    try {
      await abortMultipartUpload(env, file.originalKey, file.multipartUploadId);
    } catch {
      // Already completed or aborted: nothing of it is left to stop.
    }
  }
  await deleteObjects(env, [file.originalKey]);
}

/**
 * A signed upload URL writes only while its file is declared: a removed file's URL must not keep
 * storing bytes nobody will ever list (a link could otherwise fill storage by declaring, removing and
 * writing again), and an uploaded file is never overwritten.
 */
export async function requireWritableFile(db: Database, fileId: string): Promise<void> {
  const status = await fileStatus(db, fileId);
  if (status === null || status === "deleted") {
    throw new ApiError("capture_file_not_found", { detail: "The file was removed from the capture; its upload URL writes nothing." });
  }
  if (status !== "declared") throw new ApiError("upload_url_used");
}

/** After a write that raced a removal: the bytes of a file removed meanwhile are deleted too. */
export async function discardIfRemoved(store: ObjectStore, db: Database, fileId: string, key: string): Promise<void> {
  if ((await fileStatus(db, fileId)) !== "deleted") return;
  await deleteObjects(store, [key]);
  throw new ApiError("capture_file_not_found", { detail: "The file was removed from the capture while it was uploading." });
}
