/** One entry of a stored (uncompressed, non-ZIP64) archive: its CRC-32 and size as the central directory gives them, and its bytes. */
export interface StoredZipEntry {
  crc: number;
  size: number;
  bytes: Uint8Array;
}

/** The entries of a stored ZIP (the package route streams its entries uncompressed), by name, read from its central directory. */
export function storedZipEntries(zip: Uint8Array): Map<string, StoredZipEntry> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  if (view.getUint32(end, true) !== 0x06054b50) throw new Error("no end of central directory record where a ZIP without comment has it");
  const entries = new Map<string, StoredZipEntry>();
  let offset = view.getUint32(end + 16, true);
  for (let index = 0; index < view.getUint16(end + 10, true); index++) {
    if (view.getUint32(offset, true) !== 0x02014b50) throw new Error(`no central directory header at ${offset}`);
    const nameLength = view.getUint16(offset + 28, true);
    const name = new TextDecoder().decode(zip.subarray(offset + 46, offset + 46 + nameLength));
    const size = view.getUint32(offset + 24, true);
    const local = view.getUint32(offset + 42, true);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    entries.set(name, { crc: view.getUint32(offset + 16, true), size, bytes: zip.slice(start, start + size) });
    offset += 46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  return entries;
}

/** The bytes of a stored ZIP's entries, by name. */
export function storedZipBytes(zip: Uint8Array): Map<string, Uint8Array> {
  return new Map([...storedZipEntries(zip)].map(([name, entry]) => [name, entry.bytes]));
}
