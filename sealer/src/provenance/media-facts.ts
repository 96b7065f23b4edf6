import { webmVideoSize } from "./webm-size.ts";

/**
 * What the sealer reads from the bytes themselves, to compare with what the device reported: the
 * decoded dimensions (JPEG, PNG, WebP, HEIC `ispe`, MP4/QuickTime video track `tkhd`, WebM `PixelWidth`/`PixelHeight`), a video's duration
 * (MP4/QuickTime `mvhd`), and the EXIF fields a
 * camera or gallery file carries and a capture page's still does not (maker, model, original date).
 * Parsers read only what they need and give up quietly on anything unexpected: a fact not found is null.
 */
export interface MediaFacts {
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  exif: { make: string | null; model: string | null; date_time_original: string | null } | null;
}

const u16 = (bytes: Uint8Array, offset: number, little = false) =>
  little ? bytes[offset]! | (bytes[offset + 1]! << 8) : (bytes[offset]! << 8) | bytes[offset + 1]!;
const u32 = (bytes: Uint8Array, offset: number, little = false) =>
  (little
    ? bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24)
    : (bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
const ascii = (bytes: Uint8Array, offset: number, length: number) => String.fromCharCode(...bytes.subarray(offset, offset + length));

export function mediaFacts(bytes: Uint8Array, type: string): MediaFacts {
  const none: MediaFacts = { width: null, height: null, duration_ms: null, exif: null };
  try {
    if (type === "image/jpeg") return { ...none, ...jpegFacts(bytes) };
    if (type === "image/png" && bytes.length >= 24) return { ...none, width: u32(bytes, 16), height: u32(bytes, 20) };
    if (type === "image/webp") return { ...none, ...webpSize(bytes) };
    if (type === "image/heic" || type === "image/heif") return { ...none, ...heifSize(bytes) };
    if (type === "video/mp4" || type === "video/quicktime") return { ...none, ...bmffVideoSize(bytes), duration_ms: bmffDuration(bytes) };
    if (type === "video/webm") return { ...none, ...webmVideoSize(bytes) };
  } catch {
    // A structure the parser does not expect: no fact, never a failure (the file was already verified).
  }
  return none;
}

function jpegFacts(bytes: Uint8Array): Pick<MediaFacts, "width" | "height" | "exif"> {
  let width: number | null = null;
  let height: number | null = null;
  let exif: MediaFacts["exif"] = null;
  let offset = 2;
  while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const length = u16(bytes, offset + 2);
    if (marker === 0xe1 && ascii(bytes, offset + 4, 6) === "Exif\0\0") exif = readExif(bytes.subarray(offset + 10, offset + 2 + length));
    // Start-of-frame markers (C0–CF except DHT C4, JPG C8, DAC CC) carry the frame's size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      height = u16(bytes, offset + 5);
      width = u16(bytes, offset + 7);
    }
    offset += 2 + length;
  }
  return { width, height, exif };
}

/** TIFF-structured EXIF: Make (0x010F) and Model (0x0110) in IFD0, DateTimeOriginal (0x9003) in the Exif IFD. */
function readExif(tiff: Uint8Array): MediaFacts["exif"] {
  const little = ascii(tiff, 0, 2) === "II";
  const entries = (ifd: number) => {
    const found = new Map<number, string | number>();
    const count = u16(tiff, ifd, little);
    for (let index = 0; index < count; index++) {
      const entry = ifd + 2 + index * 12;
      const tag = u16(tiff, entry, little);
      const kind = u16(tiff, entry + 2, little);
      const length = u32(tiff, entry + 4, little);
      if (kind === 2) {
        const at = length <= 4 ? entry + 8 : u32(tiff, entry + 8, little);
        found.set(tag, ascii(tiff, at, length).replace(/\0+$/, "").trim());
      } else if (kind === 4) found.set(tag, u32(tiff, entry + 8, little));
    }
    return found;
  };
  const ifd0 = entries(u32(tiff, 4, little));
  const exifIfd = ifd0.get(0x8769);
  const sub = typeof exifIfd === "number" ? entries(exifIfd) : new Map<number, string | number>();
  const text = (value: string | number | undefined) => (typeof value === "string" && value !== "" ? value : null);
  return { make: text(ifd0.get(0x010f)), model: text(ifd0.get(0x0110)), date_time_original: text(sub.get(0x9003)) };
}

type Size = Pick<MediaFacts, "width" | "height">;
const NO_SIZE: Size = { width: null, height: null };

/** WebP's canvas size: VP8X (extended) stores it minus one in 24 bits, VP8L in 14 bits, VP8 (lossy) in its key frame header. */
function webpSize(bytes: Uint8Array): Size {
  const chunk = ascii(bytes, 12, 4);
  const u24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
  if (chunk === "VP8X" && bytes.length >= 30) return { width: u24(24) + 1, height: u24(27) + 1 };
  if (chunk === "VP8L" && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = u32(bytes, 21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 " && bytes.length >= 30 && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
    return { width: u16(bytes, 26, true) & 0x3fff, height: u16(bytes, 28, true) & 0x3fff };
  }
  return NO_SIZE;
}

/** Each box inside [start, end) of an ISO base media file (MP4, QuickTime, HEIF): its type and its payload range. */
function* boxes(bytes: Uint8Array, start: number, end: number): Generator<{ type: string; start: number; end: number }> {
  let offset = start;
  while (offset + 8 <= end) {
    let size = u32(bytes, offset);
    let header = 8;
    if (size === 1) {
      size = Number((BigInt(u32(bytes, offset + 8)) << 32n) | BigInt(u32(bytes, offset + 12)));
      header = 16;
    } else if (size === 0) size = end - offset;
    if (size < header) return;
    yield { type: ascii(bytes, offset + 4, 4), start: offset + header, end: Math.min(offset + size, end) };
    offset += size;
  }
}

const child = (bytes: Uint8Array, parent: { start: number; end: number } | null | undefined, type: string) =>
  parent ? ([...boxes(bytes, parent.start, parent.end)].find((box) => box.type === type) ?? null) : null;

/**
 * The video track's size: the `tkhd` of the `trak` whose `mdia/hdlr` handler is `vide`, as 16.16 fixed point.
 * A fragmented MP4 (MediaRecorder's) keeps its track headers in `moov` too. Zero means the muxer left it unset.
 */
function bmffVideoSize(bytes: Uint8Array): Size {
  const moov = child(bytes, { start: 0, end: bytes.length }, "moov");
  for (const trak of moov ? boxes(bytes, moov.start, moov.end) : []) {
    if (trak.type !== "trak") continue;
    const hdlr = child(bytes, child(bytes, trak, "mdia"), "hdlr");
    const tkhd = child(bytes, trak, "tkhd");
    if (!hdlr || !tkhd || ascii(bytes, hdlr.start + 8, 4) !== "vide") continue;
    const at = tkhd.start + (bytes[tkhd.start] === 1 ? 88 : 76);
    const width = Math.round(u32(bytes, at) / 65536);
    const height = Math.round(u32(bytes, at + 4) / 65536);
    return width > 0 && height > 0 ? { width, height } : NO_SIZE;
  }
  return NO_SIZE;
}

/** HEIF's primary image size: the `ispe` property that `meta/iprp/ipma` associates with the `pitm` item (thumbnails and grid tiles have their own). */
function heifSize(bytes: Uint8Array): Size {
  const meta = child(bytes, { start: 0, end: bytes.length }, "meta");
  if (!meta) return NO_SIZE;
  const payload = { start: meta.start + 4, end: meta.end }; // `meta` is a full box: version and flags first.
  const pitm = child(bytes, payload, "pitm");
  const iprp = child(bytes, payload, "iprp");
  const ipco = child(bytes, iprp, "ipco");
  const ipma = child(bytes, iprp, "ipma");
  if (!pitm || !ipco || !ipma) return NO_SIZE;
  const primary = bytes[pitm.start] === 0 ? u16(bytes, pitm.start + 4) : u32(bytes, pitm.start + 4);
  const properties = [...boxes(bytes, ipco.start, ipco.end)];
  const version = bytes[ipma.start]!;
  const wideIndex = (bytes[ipma.start + 3]! & 1) === 1;
  let at = ipma.start + 8;
  for (let entry = u32(bytes, ipma.start + 4); entry > 0; entry--) {
    const item = version < 1 ? u16(bytes, at) : u32(bytes, at);
    at += version < 1 ? 2 : 4;
    const count = bytes[at++]!;
    for (let index = 0; index < count; index++, at += wideIndex ? 2 : 1) {
      // The high bit marks the association as essential; the rest is a 1-based index into `ipco`.
      const property = wideIndex ? u16(bytes, at) & 0x7fff : bytes[at]! & 0x7f;
      const box = properties[property - 1];
      if (item === primary && box?.type === "ispe") return { width: u32(bytes, box.start + 4), height: u32(bytes, box.start + 8) };
    }
  }
  return NO_SIZE;
}

/** The movie header's duration over its timescale, found in `moov`/`mvhd`. */
function bmffDuration(bytes: Uint8Array): number | null {
  const mvhd = child(bytes, child(bytes, { start: 0, end: bytes.length }, "moov"), "mvhd");
  if (!mvhd) return null;
  const version = bytes[mvhd.start]!;
  const timescale = u32(bytes, mvhd.start + (version === 1 ? 20 : 12));
  const duration = version === 1 ? Number((BigInt(u32(bytes, mvhd.start + 24)) << 32n) | BigInt(u32(bytes, mvhd.start + 28))) : u32(bytes, mvhd.start + 16);
  // A fragmented MP4 (what MediaRecorder writes) leaves the movie header's duration at 0 or all ones: its
  // length is in the fragments, which are not summed here, so it counts as not decoded rather than as 0 s.
  const unknown = duration === 0 || duration === 0xffffffff || duration === Number.MAX_SAFE_INTEGER;
  return timescale > 0 && !unknown ? Math.round((duration / timescale) * 1000) : null;
}
