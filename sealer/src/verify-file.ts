import { crc32 } from "../../shared/crc32.ts";
import type { SealFailureCode } from "../../shared/sealer-protocol.ts";

export class FileRejectedError extends Error {
  readonly code: SealFailureCode;
  readonly fileId: string;
  constructor(code: SealFailureCode, fileId: string, message: string) {
    super(message);
    this.code = code;
    this.fileId = fileId;
  }
}

const at = (bytes: Uint8Array, offset: number, signature: number[]) => signature.every((byte, i) => bytes[offset + i] === byte);
const ascii = (bytes: Uint8Array, offset: number, length: number) => String.fromCharCode(...bytes.subarray(offset, offset + length));

/** The real type of a file, from its first bytes; null when it is none of the allowed types. */
export function sniffType(bytes: Uint8Array): string | null {
  if (at(bytes, 0, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (at(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "image/webp";
  if (at(bytes, 0, [0x1a, 0x45, 0xdf, 0xa3])) return "video/webm";
  if (ascii(bytes, 4, 4) === "ftyp") {
    const brand = ascii(bytes, 8, 4);
    if (["heic", "heix", "heim", "heis", "hevc"].includes(brand)) return "image/heic";
    if (["mif1", "msf1"].includes(brand)) return "image/heif";
    if (brand === "qt  ") return "video/quicktime";
    return "video/mp4";
  }
  return null;
}

function jpegWellFormed(bytes: Uint8Array): boolean {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return false;
    const marker = bytes[offset + 1]!;
    if (marker === 0xd9) return true;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = (bytes[offset + 2]! << 8) | bytes[offset + 3]!;
    if (length < 2) return false;
    if (marker === 0xda) {
      // Entropy-coded data runs to the end-of-image marker.
      for (let i = offset + 2 + length; i + 1 < bytes.length; i++) if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
      return false;
    }
    offset += 2 + length;
  }
  return false;
}

function pngWellFormed(bytes: Uint8Array): boolean {
  let offset = 8;
  let sawHeader = false;
  while (offset + 12 <= bytes.length) {
    const length = ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
    const type = ascii(bytes, offset + 4, 4);
    if (offset === 8 && type !== "IHDR") return false;
    sawHeader = true;
    if (offset + 12 + length > bytes.length) return false;
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== readUint32(bytes, offset + 8 + length)) return false;
    if (type === "IEND") return sawHeader;
    offset += 12 + length;
  }
  return false;
}

function bmffWellFormed(bytes: Uint8Array, requireMovie: boolean): boolean {
  let offset = 0;
  const seen = new Set<string>();
  while (offset + 8 <= bytes.length) {
    let size = readUint32(bytes, offset);
    const type = ascii(bytes, offset + 4, 4);
    if (size === 1) size = Number((BigInt(readUint32(bytes, offset + 8)) << 32n) | BigInt(readUint32(bytes, offset + 12)));
    else if (size === 0) size = bytes.length - offset;
    if (size < 8 || offset + size > bytes.length) return false;
    seen.add(type);
    offset += size;
  }
  return offset === bytes.length && seen.has("ftyp") && (!requireMovie || seen.has("moov") || seen.has("moof")) && (requireMovie || seen.has("meta"));
}

function webpWellFormed(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && readUint32LE(bytes, 4) + 8 === bytes.length;
}

function webmWellFormed(bytes: Uint8Array): boolean {
  return bytes.length > 32 && ascii(bytes, 0, Math.min(bytes.length, 64)).includes("webm");
}

const readUint32 = (b: Uint8Array, o: number) => ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
const readUint32LE = (b: Uint8Array, o: number) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;

/** Whether the container is well formed: images end where they should, videos' box trees add up. */
export function isWellFormed(bytes: Uint8Array, type: string): boolean {
  switch (type) {
    case "image/jpeg":
      return jpegWellFormed(bytes);
    case "image/png":
      return pngWellFormed(bytes);
    case "image/webp":
      return webpWellFormed(bytes);
    case "image/heic":
    case "image/heif":
      return bmffWellFormed(bytes, false);
    case "video/mp4":
    case "video/quicktime":
      return bmffWellFormed(bytes, true);
    case "video/webm":
      return webmWellFormed(bytes);
    default:
      return false;
  }
}

const ALLOWED = new Set(["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp", "video/mp4", "video/quicktime", "video/webm"]);

/**
 * Checks a file before anything is signed: the declared size and SHA-256, an allowed type read from
 * the bytes that matches the declared one, and a well-formed container. Returns the sniffed type.
 */
export function verifyFile(file: { id: string; size: number; sha256: string; content_type: string }, bytes: Uint8Array, sha256Hex: string): string {
  if (bytes.length !== file.size) throw new FileRejectedError("file_size_mismatch", file.id, `Expected ${file.size} bytes, found ${bytes.length}.`);
  if (sha256Hex !== file.sha256.toLowerCase())
    throw new FileRejectedError("file_hash_mismatch", file.id, "The stored bytes do not have the SHA-256 declared at upload.");
  const sniffed = sniffType(bytes);
  if (sniffed === null || !ALLOWED.has(sniffed))
    throw new FileRejectedError("file_type_not_allowed", file.id, "The bytes are not a JPEG, PNG, HEIC/HEIF, WebP, MP4, MOV or WebM file.");
  const compatible =
    sniffed === file.content_type ||
    (sniffed === "video/mp4" && file.content_type === "video/quicktime") ||
    (sniffed === "image/heic" && file.content_type === "image/heif");
  if (!compatible) throw new FileRejectedError("file_type_mismatch", file.id, `Declared ${file.content_type} but the bytes are ${sniffed}.`);
  if (!isWellFormed(bytes, sniffed)) throw new FileRejectedError("file_corrupt", file.id, `The ${sniffed} file is truncated or malformed.`);
  return sniffed;
}
