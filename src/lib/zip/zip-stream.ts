import { crc32 } from "./crc32.ts";

export interface ZipEntry {
  name: string;
  body: () => Promise<ReadableStream<Uint8Array> | Uint8Array | string>;
}

const encoder = new TextEncoder();
const FLAGS = 0x0808; // bit 3: sizes and CRC follow the data; bit 11: UTF-8 names

function dosDateTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

function record(fields: [number, 2 | 4][], tail: Uint8Array = new Uint8Array(0)): Uint8Array {
  const size = fields.reduce((sum, [, width]) => sum + width, 0);
  const out = new Uint8Array(size + tail.length);
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const [value, width] of fields) {
    if (width === 2) view.setUint16(offset, value, true);
    else view.setUint32(offset, value >>> 0, true);
    offset += width;
  }
  out.set(tail, size);
  return out;
}

async function* chunksOf(body: ReadableStream<Uint8Array> | Uint8Array | string): AsyncGenerator<Uint8Array> {
  if (typeof body === "string") yield encoder.encode(body);
  else if (body instanceof Uint8Array) yield body;
  else {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  }
}

/**
 * A ZIP archive written as a stream: entries are stored (media is already compressed), each followed by
 * a data descriptor carrying the CRC-32 and size computed on the way, so no file is ever held whole in
 * memory. Entries and the archive stay under 4 GiB (no ZIP64).
 */
export function zipStream(entries: ZipEntry[], modified: Date): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const { time, date } = dosDateTime(modified);
  const write = async (chunk: Uint8Array, position: { offset: number }) => {
    await writer.write(chunk);
    position.offset += chunk.length;
  };
  (async () => {
    const position = { offset: 0 };
    const central: Uint8Array[] = [];
    for (const entry of entries) {
      const name = encoder.encode(entry.name);
      const start = position.offset;
      await write(record([[0x04034b50, 4], [20, 2], [FLAGS, 2], [0, 2], [time, 2], [date, 2], [0, 4], [0, 4], [0, 4], [name.length, 2], [0, 2]], name), position);
      let crc = 0;
      let size = 0;
      for await (const chunk of chunksOf(await entry.body())) {
        crc = crc32(chunk, crc);
        size += chunk.length;
        await write(chunk, position);
      }
      await write(record([[0x08074b50, 4], [crc, 4], [size, 4], [size, 4]]), position);
      central.push(
        record(
          [[0x02014b50, 4], [20, 2], [20, 2], [FLAGS, 2], [0, 2], [time, 2], [date, 2], [crc, 4], [size, 4], [size, 4], [name.length, 2], [0, 2], [0, 2], [0, 2], [0, 2], [0, 4], [start, 4]],
          name,
        ),
      );
    }
    const directoryStart = position.offset;
    for (const header of central) await write(header, position);
    const directorySize = position.offset - directoryStart;
    await write(record([[0x06054b50, 4], [0, 2], [0, 2], [central.length, 2], [central.length, 2], [directorySize, 4], [directoryStart, 4], [0, 2]]), position);
    await writer.close();
  })().catch((error: unknown) => writer.abort(error));
  return readable;
}
