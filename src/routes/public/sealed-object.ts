import type { Context } from "hono";
import type { HonoEnv } from "../../env.ts";
import { ApiError } from "../../errors/api-error.ts";
import type { ErrorCode } from "../../errors/catalogue.ts";
import { filesToServe, publicProofOrThrow } from "../../verification/find-public-proof.ts";
import type { FileRow, ProofRow } from "../../storage/rows.ts";
import { immutableOrNotModified } from "./caching.ts";
import { foundAltered } from "../../storage/sealed-object-checks.ts";
import { openObject } from "../../storage/objects/bucket.ts";

/** What a browser may do with stored bytes opened on their own: nothing but show them. */
const STORED_BYTES_CSP = "default-src 'none'; sandbox";

/** A file of a sealed proof: its signed copy is stored. */
export type SealedFile = FileRow & { signedKey: string };

/** One object stored for a sealed file (the signed copy, the thumbnail), as a public route serves it. */
export interface SealedObject {
  key: string;
  contentType: string;
  /** The name a browser saves it under. */
  filename: string;
  /** Its strong ETag, unquoted: made at sealing, the object never changes. */
  etag: string | null;
  /** The problem answered when the object is not in storage. */
  missing: ErrorCode;
  /**
   * Its bytes as the proof's record binds them (a thumbnail since sealer protocol 12): read and compared before anything
   * is answered; other bytes are refused with `altered` (forger session 7, G6).
   */
  bound?: { read: () => Promise<Uint8Array<ArrayBuffer> | "altered" | null>; altered: ErrorCode };
}

/**
 * Refuses stored bytes that are not the sealed ones, as never to be kept: no ETag, no caching, and saying they are not
 * the sealed object (the header a signed file found altered is served with).
 */
export function refusedAsAltered(c: Context<HonoEnv>, code: ErrorCode): ApiError {
  c.header("ETag", undefined);
  c.header("Cache-Control", "no-store");
  c.header("Sealed-File-Status", "altered");
  return new ApiError(code);
}

/**
 * Serves an object stored for a file of a sealed proof, the same way on every public route:
 * `capture_file_not_found` unless the proof is sealed and has that file with its signed copy (`sealed_record_unavailable`
 * when the service's record of its files is missing or altered: which file is sealed cannot be said); immutable under
 * its ETag (304 when the client has it), unless the re-hash found the signed file altered, or (an object the record
 * binds) unless it is other bytes, refused then; streamed inline with its type and length, never sniffed nor run as a
 * document, saying the proof's mode. `select` names the file's object, or throws the route's own problem when the file
 * has none.
 */
export async function serveSealedObject(
  c: Context<HonoEnv>,
  ids: { id: string; fileId: string },
  select: (file: SealedFile, proof: ProofRow) => SealedObject,
): Promise<Response> {
  const { proof, files } = await publicProofOrThrow({ ctx: { db: c.var.db, env: c.env }, input: { id: ids.id } });
  const file = filesToServe(files).find((candidate) => candidate.id === ids.fileId);
  if (file === undefined || file.signedKey === null || proof.status !== "sealed") throw new ApiError("capture_file_not_found");
  const object = select({ ...file, signedKey: file.signedKey }, proof);
  if (object.bound !== undefined) {
    const bytes = await object.bound.read();
    if (bytes === null) throw missing(c, object);
    if (bytes === "altered") throw refusedAsAltered(c, object.bound.altered);
    return immutableOrNotModified(c, true, object.etag) ?? served(c, proof, object, { body: bytes, size: bytes.length }, false);
  }
  // A signed file the re-hash found changed since sealing (docs/adr/0037) is still served, as evidence, but never
  // under the sealed file's ETag, never cached, and saying it is not the sealed file.
  const altered = object.key === file.signedKey && (await foundAltered(c.var.db.$client, object.key));
  const notModified = immutableOrNotModified(c, !altered, altered ? null : object.etag);
  if (notModified) return notModified;
  if (altered) c.header("Sealed-File-Status", "altered");
  const stored = await openObject(c.env, object.key);
  if (stored === null) throw missing(c, object);
  return served(c, proof, object, stored, altered);
}

/** Its 404 must not be kept a year under the object's ETag: the object may be restored from a backup. */
function missing(c: Context<HonoEnv>, object: SealedObject): ApiError {
  c.header("ETag", undefined);
  c.header("Cache-Control", "no-store");
  return new ApiError(object.missing);
}

function served(
  c: Context<HonoEnv>,
  proof: ProofRow,
  object: SealedObject,
  stored: { body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>; size: number },
  altered: boolean,
): Response {
  c.header("Content-Type", object.contentType);
  c.header("Content-Length", String(stored.size));
  c.header("Content-Disposition", `inline; filename="${altered ? `altered-${object.filename}` : object.filename}"`);
  c.header("X-Content-Type-Options", "nosniff");
  // Bytes from storage, on the origin of the verification pages: never a document that runs or loads anything
  // (forger session 7, G14), as the capture page's before thumbnails.
  c.header("Content-Security-Policy", STORED_BYTES_CSP);
  c.header("Proof-Mode", proof.mode);
  return c.body(stored.body, 200);
}
