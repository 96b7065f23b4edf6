/**
 * What the sealer reads from the bytes themselves, to compare with what the device reported: the
 * decoded dimensions (JPEG, PNG), a video's duration (MP4/QuickTime `mvhd`), and the EXIF fields a
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
    if (type === "video/mp4" || type === "video/quicktime") return { ...none, duration_ms: bmffDuration(bytes) };
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

/** The movie header's duration over its timescale, found by walking top-level boxes to `moov`/`mvhd`. */
function bmffDuration(bytes: Uint8Array): number | null {
  const find = (start: number, end: number, name: string): [number, number] | null => {
    let offset = start;
    while (offset + 8 <= end) {
      let size = u32(bytes, offset);
      let header = 8;
      if (size === 1) {
        size = Number((BigInt(u32(bytes, offset + 8)) << 32n) | BigInt(u32(bytes, offset + 12)));
        header = 16;
      } else if (size === 0) size = end - offset;
      if (size < header) return null;
      if (ascii(bytes, offset + 4, 4) === name) return [offset + header, offset + size];
      offset += size;
    }
    return null;
  };
  const moov = find(0, bytes.length, "moov");
  const mvhd = moov && find(moov[0], moov[1], "mvhd");
  if (!mvhd) return null;
  const version = bytes[mvhd[0]]!;
  const timescale = u32(bytes, mvhd[0] + (version === 1 ? 20 : 12));
  const duration = version === 1 ? Number((BigInt(u32(bytes, mvhd[0] + 24)) << 32n) | BigInt(u32(bytes, mvhd[0] + 28))) : u32(bytes, mvhd[0] + 16);
  // A fragmented MP4 (what MediaRecorder writes) leaves the movie header's duration at 0 or all ones: its
  // length is in the fragments, which are not summed here, so it counts as not decoded rather than as 0 s.
  const unknown = duration === 0 || duration === 0xffffffff || duration === Number.MAX_SAFE_INTEGER;
  return timescale > 0 && !unknown ? Math.round((duration / timescale) * 1000) : null;
}
