/**
 * The records of a ZIP archive (PKWARE APPNOTE 6.3.10), with ZIP64 where a size, an offset or the
 * entry count does not fit the classic fields. Only what a stored (uncompressed), streamed archive
 * needs: local headers announce a data descriptor (bit 3), which follows each entry's bytes.
 */

/** The value a classic 4-byte field holds when the real one is in a ZIP64 field. */
export const MAX_32 = 0xffffffff;
/** The value the classic 2-byte entry count holds when the real one is in the ZIP64 end record. */
export const MAX_16 = 0xffff;

const FLAGS = 0x0808; // bit 3: CRC and sizes follow the data; bit 11: UTF-8 names
const VERSION_CLASSIC = 20;
const VERSION_ZIP64 = 45;
const ZIP64_EXTRA_ID = 0x0001;

type Field = [value: number, width: 2 | 4 | 8];

/** Little-endian fields then an optional tail; 8-byte fields take any safe integer. */
function record(fields: Field[], ...tails: Uint8Array[]): Uint8Array {
  const fieldsSize = fields.reduce((sum, [, width]) => sum + width, 0);
  const out = new Uint8Array(fieldsSize + tails.reduce((sum, tail) => sum + tail.length, 0));
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const [value, width] of fields) {
    if (width === 2) view.setUint16(offset, value, true);
    else if (width === 4) view.setUint32(offset, value >>> 0, true);
    else {
      view.setUint32(offset, value % 2 ** 32, true);
      view.setUint32(offset + 4, Math.floor(value / 2 ** 32), true);
    }
    offset += width;
  }
  for (const tail of tails) {
    out.set(tail, offset);
    offset += tail.length;
  }
  return out;
}

/** A ZIP64 extended information extra field holding `values` (8 bytes each, in the order APPNOTE 4.5.3 gives). */
function zip64Extra(values: number[]): Uint8Array {
  if (values.length === 0) return new Uint8Array(0);
  return record([[ZIP64_EXTRA_ID, 2], [values.length * 8, 2], ...values.map((value): Field => [value, 8])]);
}

export interface EntryStamp {
  name: Uint8Array;
  time: number;
  date: number;
}

/** An entry of `size` bytes needs ZIP64 sizes (in its local extra, descriptor and central record). */
export const needsZip64 = (size: number) => size >= MAX_32;

/**
 * Local file header. CRC and sizes come in the data descriptor; an entry of 4 GiB or more says so here
 * with a ZIP64 extra (sizes zero until the descriptor, as APPNOTE 4.3.9 and Python's zipfile do), which
 * tells readers its descriptor carries 8-byte sizes.
 */
export function localHeader(entry: EntryStamp, size: number): Uint8Array {
  const zip64 = needsZip64(size);
  const extra = zip64 ? zip64Extra([0, 0]) : new Uint8Array(0);
  const sizeField = zip64 ? MAX_32 : 0;
  return record(
    [
      [0x04034b50, 4],
      [zip64 ? VERSION_ZIP64 : VERSION_CLASSIC, 2],
      [FLAGS, 2],
      [0, 2],
      [entry.time, 2],
      [entry.date, 2],
      [0, 4],
      [sizeField, 4],
      [sizeField, 4],
      [entry.name.length, 2],
      [extra.length, 2],
    ],
    entry.name,
    extra,
  );
}

export function dataDescriptor(crc: number, size: number): Uint8Array {
  const width = needsZip64(size) ? 8 : 4;
  return record([
    [0x08074b50, 4],
    [crc, 4],
    [size, width],
    [size, width],
  ]);
}

/** Central directory header; whatever overflows its 4-byte field goes into a ZIP64 extra. */
export function centralHeader(entry: EntryStamp, crc: number, size: number, localOffset: number): Uint8Array {
  const zip64Size = needsZip64(size);
  const zip64Offset = localOffset >= MAX_32;
  const extra = zip64Extra([...(zip64Size ? [size, size] : []), ...(zip64Offset ? [localOffset] : [])]);
  const version = zip64Size || zip64Offset ? VERSION_ZIP64 : VERSION_CLASSIC;
  const sizeField = zip64Size ? MAX_32 : size;
  return record(
    [
      [0x02014b50, 4],
      [version, 2],
      [version, 2],
      [FLAGS, 2],
      [0, 2],
      [entry.time, 2],
      [entry.date, 2],
      [crc, 4],
      [sizeField, 4],
      [sizeField, 4],
      [entry.name.length, 2],
      [extra.length, 2],
      [0, 2],
      [0, 2],
      [0, 2],
      [0, 4],
      [zip64Offset ? MAX_32 : localOffset, 4],
    ],
    entry.name,
    extra,
  );
}

/**
 * The end of the archive: the classic end of central directory record, preceded by the ZIP64 end
 * record and its locator when the entry count, the directory's size or its offset overflow.
 */
export function endOfArchive(entries: number, directoryOffset: number, directorySize: number): Uint8Array {
  const zip64 = entries >= MAX_16 || directoryOffset >= MAX_32 || directorySize >= MAX_32;
  const classic = record([
    [0x06054b50, 4],
    [0, 2],
    [0, 2],
    [zip64 ? MAX_16 : entries, 2],
    [zip64 ? MAX_16 : entries, 2],
    [zip64 ? MAX_32 : directorySize, 4],
    [zip64 ? MAX_32 : directoryOffset, 4],
    [0, 2],
  ]);
  if (!zip64) return classic;
  const zip64EndOffset = directoryOffset + directorySize;
  const zip64End = record([
    [0x06064b50, 4],
    [44, 8],
    [VERSION_ZIP64, 2],
    [VERSION_ZIP64, 2],
    [0, 4],
    [0, 4],
    [entries, 8],
    [entries, 8],
    [directorySize, 8],
    [directoryOffset, 8],
  ]);
  const locator = record([
    [0x07064b50, 4],
    [0, 4],
    [zip64EndOffset, 8],
    [1, 4],
  ]);
  return record([], zip64End, locator, classic);
}
