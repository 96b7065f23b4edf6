import type { App } from "../../app.ts";
import { ApiError } from "../../errors/api-error.ts";
import { verifyLocalGrant } from "../../storage/objects/signed-urls.ts";
import { markFileUploaded, recordPart } from "../../storage/files.ts";
import { nowIso } from "../../lib/time.ts";
import { deleteObjects, objectHead, openObject } from "../../storage/objects/bucket.ts";
import { putUpload, sessionOfUploadKey, uploadPart } from "../../storage/objects/capture-uploads.ts";
import { databaseOfId } from "../../db/shards.ts";
import { discardIfRemoved, requireWritableFile } from "../../capture-page/remove-file.ts";

/**
 * The local stand-in for R2's presigned URLs (development and tests; production uses the S3 API). Each
 * URL allows one method on one object; an upload must have the declared size and SHA-256 (R2 checks the
 * digest itself) and cannot overwrite a capture file already stored nor write one removed from its capture.
 */
export function registerLocalSignedStorage(app: App) {
  app.put("/u/:token", async (c) => {
    const check = await verifyLocalGrant(c.env, c.req.param("token"), "PUT");
    if (!check.ok) throw new ApiError(check.reason === "expired" ? "upload_url_expired" : "upload_url_invalid");
    const { grant } = check;
    const length = Number(c.req.header("Content-Length") ?? "-1");
    if (grant.n !== undefined && length !== grant.n) throw new ApiError("upload_size_mismatch");
    const body = c.req.raw.body;
    if (body === null) throw new ApiError("upload_size_mismatch");
    // A capture file's row is in its session's shard, which the object's key names (docs/adr/0062).
    const sessionId = sessionOfUploadKey(grant.k);
    const db = (sessionId === null ? null : databaseOfId(c.env, sessionId)) ?? c.var.db;
    if (grant.f !== undefined) await requireWritableFile(db, grant.f);
    if (grant.u !== undefined && grant.p !== undefined) {
      // One part of a multipart upload: R2 keeps the parts until the completion checks the whole file.
      let part: R2UploadedPart;
      try {
        part = await uploadPart(c.env, grant.k, grant.u, grant.p, body);
      } catch (error) {
        // The file was removed meanwhile and its upload aborted: say so rather than fail.
        if (grant.f !== undefined) await requireWritableFile(db, grant.f);
        throw error;
      }
      if (grant.f !== undefined) await recordPart(db, grant.f, { part_number: part.partNumber, etag: part.etag });
      c.header("ETag", part.etag);
      return c.text("", 200);
    }
    if (grant.f !== undefined && (await objectHead(c.env, grant.k)) !== null) throw new ApiError("upload_url_used");
    let stored: R2Object | null;
    try {
      stored = await putUpload(c.env, grant.k, body, { sha256: grant.s, contentType: grant.c });
    } catch (error) {
      if (/sha-?256|checksum|digest/i.test((error as Error).message)) throw new ApiError("upload_checksum_mismatch");
      throw error;
    }
    if (grant.f !== undefined) await discardIfRemoved(c.env, db, grant.f, grant.k);
    if (stored !== null && grant.f !== undefined) await markFileUploaded(db, grant.f, stored.uploaded.toISOString() ?? nowIso());
    c.header("ETag", stored?.httpEtag ?? "");
    // An empty answer with a content type: without one, Firefox tries to read it as XML and logs an error.
    return c.text("", 200);
  });

  // The sealer deletes the signed copies of a run it abandons (deleting a missing object succeeds, as in R2).
  app.delete("/u/:token", async (c) => {
    const check = await verifyLocalGrant(c.env, c.req.param("token"), "DELETE");
    if (!check.ok) throw new ApiError(check.reason === "expired" ? "upload_url_expired" : "upload_url_invalid");
    await deleteObjects(c.env, [check.grant.k]);
    return c.body(null, 204);
  });

  app.get("/u/:token", async (c) => {
    const check = await verifyLocalGrant(c.env, c.req.param("token"), "GET");
    if (!check.ok) throw new ApiError(check.reason === "expired" ? "upload_url_expired" : "upload_url_invalid");
    const object = await openObject(c.env, check.grant.k);
    if (object === null) throw new ApiError("not_found");
    c.header("Content-Type", object.contentType ?? "application/octet-stream");
    c.header("Content-Length", String(object.size));
    return c.body(object.body, 200);
  });
}
