import { inflateRawSync } from "node:zlib";

/**
 * The entries of a ZIP held in memory, read from its central directory (stored or deflated, ZIP64 sizes
 * and offsets included): enough for the service's packages without any dependency. Each local header must
 * name its central entry's file with its sizes (in its data descriptor when it has one), and the local
 * entries must fill the bytes before the central directory, end to end: an entry no directory lists, which a
 * reader walking local headers would meet (forger finding O3), is refused rather than left unread.
 */
export function readZip(zip: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("not a ZIP archive (no end of central directory)");
  let count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  if (offset === 0xffffffff || count === 0xffff) {
    // ZIP64: the locator just before points to the ZIP64 end record, which holds the real values.
    const record = Number(view.getBigUint64(end - 20 + 8, true));
    count = Number(view.getBigUint64(record + 32, true));
    offset = Number(view.getBigUint64(record + 48, true));
  }
  const centralStart = offset;
  const entries = new Map<string, Uint8Array>();
  /** Each local entry's [start, end) in the archive. */
  const extents: [number, number, string][] = [];
  for (let index = 0; index < count; index++) {
    if (view.getUint32(offset, true) !== 0x02014b50) throw new Error("damaged ZIP central directory");
    const method = view.getUint16(offset + 10, true);
    let compressed: number = view.getUint32(offset + 20, true);
    let size: number = view.getUint32(offset + 24, true);
    let local: number = view.getUint32(offset + 42, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const name = new TextDecoder().decode(zip.subarray(offset + 46, offset + 46 + nameLength));
    for (let at = offset + 46 + nameLength; at < offset + 46 + nameLength + extraLength; ) {
      const id = view.getUint16(at, true);
      const length = view.getUint16(at + 2, true);
      if (id === 0x0001) {
        let field = at + 4;
        const next = () => {
          const value = Number(view.getBigUint64(field, true));
          field += 8;
          return value;
        };
        if (size === 0xffffffff) size = next();
        if (compressed === 0xffffffff) compressed = next();
        if (local === 0xffffffff) local = next();
      }
      at += 4 + length;
    }
    const rawName = zip.subarray(offset + 46, offset + 46 + nameLength);
    const { dataStart, end } = localEntry(zip, view, local, { name, rawName, compressed, size });
    extents.push([local, end, name]);
    const data = zip.subarray(dataStart, dataStart + compressed);
    if (method !== 0 && method !== 8) throw new Error(`${name}: unsupported ZIP compression method ${method}`);
    const bytes = method === 8 ? new Uint8Array(inflateRawSync(data)) : data;
    if (bytes.length !== size) throw new Error(`${name}: size differs from the ZIP directory`);
    // Two entries of one name: unzip and this reader could each show a different one.
    if (entries.has(name)) throw new Error(`${name}: twice in the ZIP`);
    entries.set(name, bytes);
    offset += 46 + nameLength + extraLength + view.getUint16(offset + 32, true);
  }
  let covered = 0;
  for (const [start, end, name] of extents.sort(([a], [b]) => a - b)) {
    if (start !== covered) throw new Error(`${start > covered ? "bytes no entry of the ZIP directory lists" : "entries overlapping"} before ${name}`);
    covered = end;
  }
  if (covered !== centralStart) throw new Error("bytes no entry of the ZIP directory lists before the directory");
  return entries;
}

/**
 * The local header at `at` checked against its central entry (same name, same sizes: in the header, or in the
 * data descriptor that follows the data when flag bit 3 says so); where its data starts and its entry ends.
 */
function localEntry(
  zip: Uint8Array,
  view: DataView,
  at: number,
  central: { name: string; rawName: Uint8Array; compressed: number; size: number },
): { dataStart: number; end: number } {
  const differs = (what: string) => new Error(`${central.name}: its local header differs from the ZIP directory (${what})`);
  if (at + 30 > zip.byteLength || view.getUint32(at, true) !== 0x04034b50) throw differs("no local header where the directory says");
  const nameLength = view.getUint16(at + 26, true);
  const extraLength = view.getUint16(at + 28, true);
  const name = zip.subarray(at + 30, at + 30 + nameLength);
  if (name.length !== central.rawName.length || name.some((byte, index) => byte !== central.rawName[index])) throw differs("another name");
  let zip64 = false;
  const sizes = { compressed: view.getUint32(at + 18, true), size: view.getUint32(at + 22, true) };
  for (let field = at + 30 + nameLength; field + 4 <= at + 30 + nameLength + extraLength; field += 4 + view.getUint16(field + 2, true)) {
    if (view.getUint16(field, true) !== 0x0001) continue;
    zip64 = true;
    // The local ZIP64 field holds both sizes, uncompressed first (APPNOTE 4.5.3).
    if (sizes.size === 0xffffffff) sizes.size = Number(view.getBigUint64(field + 4, true));
    if (sizes.compressed === 0xffffffff) sizes.compressed = Number(view.getBigUint64(field + 12, true));
  }
  const dataStart = at + 30 + nameLength + extraLength;
  let end = dataStart + central.compressed;
  if (view.getUint16(at + 6, true) & 0x0008) {
    // Sizes and CRC follow the data (a streamed archive, as the service writes it).
    if (end + 4 <= zip.byteLength && view.getUint32(end, true) === 0x08074b50) end += 4;
    const width = zip64 ? 8 : 4;
    if (end + 4 + 2 * width > zip.byteLength) throw differs("no data descriptor after its data");
    const read = (field: number) => (width === 8 ? Number(view.getBigUint64(field, true)) : view.getUint32(field, true));
    sizes.compressed = read(end + 4);
    sizes.size = read(end + 4 + width);
    end += 4 + 2 * width;
  }
  if (sizes.compressed !== central.compressed || sizes.size !== central.size) throw differs("other sizes");
  return { dataStart, end };
}
