import { inflateRawSync } from "node:zlib";

/**
 * The entries of a ZIP held in memory, read from its central directory (stored or deflated, ZIP64 sizes
 * and offsets included): enough for the service's packages without any dependency.
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
  const entries = new Map<string, Uint8Array>();
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
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(dataStart, dataStart + compressed);
    if (method !== 0 && method !== 8) throw new Error(`${name}: unsupported ZIP compression method ${method}`);
    const bytes = method === 8 ? new Uint8Array(inflateRawSync(data)) : data;
    if (bytes.length !== size) throw new Error(`${name}: size differs from the ZIP directory`);
    // Two entries of one name: unzip and this reader could each show a different one.
    if (entries.has(name)) throw new Error(`${name}: twice in the ZIP`);
    entries.set(name, bytes);
    offset += 46 + nameLength + extraLength + view.getUint16(offset + 32, true);
  }
  return entries;
}
