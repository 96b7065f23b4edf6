import { crc32 } from "../../../shared/crc32.ts";
import { centralHeader, dataDescriptor, endOfArchive, localHeader, type EntryStamp } from "./zip-records.ts";

/** Bytes read from storage: their size is known before they are read. */
export interface StoredBody {
  stream: ReadableStream<Uint8Array>;
  size: number;
  /**
   * The CRC-32 recorded when the bytes were written (the sealer computes it for every signed file), so
   * the Worker never spends CPU on it; null for small artifacts and for files sealed before it was
   * recorded: the writer computes it on the way.
   */
  crc32: number | null;
}

/** Small generated content (VERIFY.md), or stored bytes. */
export type ZipBody = Uint8Array | string | StoredBody;

export interface ZipEntry {
  name: string;
  body: () => Promise<ZipBody>;
}

const encoder = new TextEncoder();

function dosDateTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

function asStored(body: ZipBody): StoredBody {
  if (typeof body !== "string" && !(body instanceof Uint8Array)) return body;
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  return { stream: new Blob([bytes]).stream(), size: bytes.length, crc32: null };
}

/**
 * A ZIP archive written as a stream: entries are stored (media is already compressed), each followed by
 * a data descriptor, so no file is ever held whole in memory. ZIP64 records appear only where a size,
 * an offset or the entry count needs them, so any archive opens, whatever its size. An entry whose bytes
 * do not add up to its announced size aborts the stream rather than end in a corrupt archive.
 */
export function zipStream(entries: ZipEntry[], modified: Date): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const { time, date } = dosDateTime(modified);
  let offset = 0;
  const write = async (chunk: Uint8Array) => {
    await writer.write(chunk);
    offset += chunk.length;
  };
  (async () => {
    const central: Uint8Array[] = [];
    for (const entry of entries) {
      const stamp: EntryStamp = { name: encoder.encode(entry.name), time, date };
      const body = asStored(await entry.body());
      const start = offset;
      await write(localHeader(stamp, body.size));
      let crc = 0;
      let size = 0;
      const reader = body.stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (body.crc32 === null) crc = crc32(value, crc);
        size += value.length;
        await write(value);
      }
      if (size !== body.size) throw new Error(`${entry.name}: ${size} bytes read, ${body.size} announced`);
      const entryCrc = body.crc32 ?? crc;
      await write(dataDescriptor(entryCrc, size));
      central.push(centralHeader(stamp, entryCrc, size, start));
    }
    const directoryOffset = offset;
    for (const header of central) await write(header);
    await write(endOfArchive(central.length, directoryOffset, offset - directoryOffset));
    await writer.close();
  })().catch((error: unknown) => writer.abort(error));
  return readable;
}
