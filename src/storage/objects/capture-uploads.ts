import type { UnusedSessionFile } from "../unused-capture-sessions.ts";
import { bucket, deleteObjects, type ObjectStore } from "./bucket.ts";

/**
 * A phone's uploads in R2 (`captureUploadKey`): multipart uploads started when a large file is declared,
 * the local stand-in for R2's presigned URLs (src/routes/storage/local-signed.ts) writing them, and their
 * abandonment when the file is removed or its session deleted unused.
 */

/** The capture session an upload's key (`captureUploadKey`) belongs to; null for any other object. */
export function sessionOfUploadKey(key: string): string | null {
  return /^captures\/([^/]+)\/[^/]+$/.exec(key)?.[1] ?? null;
}

export async function startMultipartUpload(store: ObjectStore, key: string, contentType: string): Promise<string> {
  return (await bucket(store).createMultipartUpload(key, { httpMetadata: { contentType } })).uploadId;
}

/** Assembles the upload from its parts; throws when storage holds no part under a given number and ETag. */
export async function completeMultipartUpload(store: ObjectStore, key: string, uploadId: string, parts: R2UploadedPart[]): Promise<void> {
  await bucket(store).resumeMultipartUpload(key, uploadId).complete(parts);
}

/** Stops a multipart upload and drops its parts; throws when it was already completed or aborted. */
export async function abortMultipartUpload(store: ObjectStore, key: string, uploadId: string): Promise<void> {
  await bucket(store).resumeMultipartUpload(key, uploadId).abort();
}

/** One part of a multipart upload; throws when the upload was completed or aborted meanwhile. */
export function uploadPart(store: ObjectStore, key: string, uploadId: string, partNumber: number, body: ReadableStream): Promise<R2UploadedPart> {
  return bucket(store).resumeMultipartUpload(key, uploadId).uploadPart(partNumber, body);
}

/** A whole upload in one request; storage refuses bytes whose SHA-256 is not `sha256` (when given). */
export function putUpload(store: ObjectStore, key: string, body: ReadableStream, options: { sha256?: string; contentType?: string }): Promise<R2Object | null> {
  return bucket(store).put(key, body, {
    ...(options.sha256 ? { sha256: options.sha256 } : {}),
    httpMetadata: options.contentType ? { contentType: options.contentType } : undefined,
  });
}

/**
 * Everything unused sessions left in storage: unfinished multipart uploads aborted, then their uploads and
 * signed copies deleted.
 */
export async function deleteUnusedUploads(store: ObjectStore, files: UnusedSessionFile[]): Promise<void> {
  for (const file of files) {
    if (file.multipartUploadId === null || file.status !== "declared") continue;
    try {
      await abortMultipartUpload(store, file.originalKey, file.multipartUploadId);
    } catch (error) {
      // Already completed or aborted, or gone with R2's own cleanup of unfinished uploads (7 days by
      // default): never worth keeping the session for, which would stall this sweep on it every minute.
      console.warn(JSON.stringify({ level: "warn", sweep: "delete-unused-capture-sessions", key: file.originalKey, message: (error as Error).message }));
    }
  }
  await deleteObjects(
    store,
    files.flatMap((file) => [file.originalKey, ...(file.signedKey === null ? [] : [file.signedKey])]),
  );
}
