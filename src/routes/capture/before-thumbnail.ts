import type { App } from "../../app.ts";
import { ApiError } from "../../errors/api-error.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSession } from "../../capture-page/access.ts";
import { proofThumbnails } from "../../storage/proofs-read.ts";
import { beforeFilesOrConflict } from "../../capture-sessions/comparison.ts";
import { openObject } from "../../storage/objects/bucket.ts";
import { readBoundThumbnail } from "../../storage/objects/thumbnails.ts";
import { noStore } from "./no-store.ts";

/**
 * `GET /c/{token}/before/{fileId}`: for an "after", the thumbnail of one of its before's shots, so that the
 * person can match the angles. Only behind the after's own link, while it may be used (outside the document,
 * like the logo): the before's pictures are the organization's, never public through this route.
 */
export function registerBeforeThumbnail(app: App) {
  app.get("/c/:token/before/:fileId", async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const session = await usableSession({ ctx, input: { token: c.req.param("token") } });
    const thumbnail = session.compareTo
      ? (await beforeFilesOrConflict(proofThumbnails(ctx.db, c.env, session.compareTo))).find((candidate) => candidate.id === c.req.param("fileId"))
      : undefined;
    if (thumbnail === undefined) throw new ApiError("capture_file_not_found");
    // Only the bytes the sealer wrote when the before's record keeps their SHA-256 (forger session 7, G6).
    const { sha256 } = thumbnail;
    const stored = sha256 === undefined ? await openObject(c.env, thumbnail.key) : await readBoundThumbnail(c.env, { key: thumbnail.key, sha256 });
    if (stored === null) throw new ApiError("thumbnail_not_found");
    if (stored === "altered") throw new ApiError("thumbnail_altered");
    const [body, size] = stored instanceof Uint8Array ? [stored, stored.length] : [stored.body, stored.size];
    c.header("Content-Type", thumbnail.contentType);
    c.header("Content-Length", String(size));
    c.header("Content-Security-Policy", "default-src 'none'; sandbox");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(body, 200);
  });
}
