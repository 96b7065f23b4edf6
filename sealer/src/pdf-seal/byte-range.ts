import { createHash } from "node:crypto";
import { appendUpdate, type UpdatedObject } from "./incremental-update.ts";
import type { PdfRevision } from "./pdf-revision.ts";

/** Placeholders a signature dictionary is written with, filled once the update's offsets are known. */
const BYTE_RANGE_PLACEHOLDER = "[0 ********** ********** **********]";

/** A signature dictionary's /ByteRange and /Contents placeholders, /Contents last, room for `capacity` bytes of DER. */
export const placeholders = (capacity: number) => `/ByteRange ${BYTE_RANGE_PLACEHOLDER} /Contents <${"0".repeat(capacity * 2)}>`;

/** The file is too large for a ten-digit offset, or the signature outgrew its room. */
export class SignatureSpaceError extends Error {}

/**
 * Appends the update holding a signature dictionary written with `placeholders`, then fills its /ByteRange
 * (the whole file but the /Contents hex string, brackets included, ISO 32000-1 12.8.1) and its /Contents with
 * what `sign` makes from the SHA-256 of those bytes. The bytes signed are the final ones: the byte range is
 * written before they are hashed and the signature only fills the gap it excludes.
 */
export async function signedUpdate(revision: PdfRevision, objects: UpdatedObject[], sign: (digest: Uint8Array) => Promise<Uint8Array>): Promise<Uint8Array> {
  const file = appendUpdate(revision, objects);
  const text = Buffer.from(file.buffer, file.byteOffset, file.byteLength).toString("latin1");
  const byteRangeAt = text.lastIndexOf(BYTE_RANGE_PLACEHOLDER);
  const contentsStart = text.indexOf("<", byteRangeAt + BYTE_RANGE_PLACEHOLDER.length);
  const contentsEnd = text.indexOf(">", contentsStart) + 1;
  const byteRange = `[0 ${contentsStart} ${contentsEnd} ${file.byteLength - contentsEnd}]`;
  if (byteRange.length > BYTE_RANGE_PLACEHOLDER.length) throw new SignatureSpaceError("the PDF is too large for its byte range");
  file.set(Buffer.from(byteRange.padEnd(BYTE_RANGE_PLACEHOLDER.length, " "), "latin1"), byteRangeAt);
  const digest = createHash("sha256").update(file.subarray(0, contentsStart)).update(file.subarray(contentsEnd)).digest();
  const signature = Buffer.from(await sign(new Uint8Array(digest))).toString("hex");
  const room = contentsEnd - contentsStart - 2;
  if (signature.length > room) throw new SignatureSpaceError(`the signature takes ${signature.length / 2} bytes, ${room / 2} were reserved`);
  file.set(Buffer.from(signature, "latin1"), contentsStart + 1);
  return file;
}
