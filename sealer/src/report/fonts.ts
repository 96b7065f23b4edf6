import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { inflateSync } from "node:zlib";

const require = createRequire(import.meta.url);

/** A font file of an @fontsource package (they export only their CSS and LICENSE, so the folder is found from the latter). */
const fontFile = (packageName: string, file: string) => readFileSync(join(dirname(require.resolve(`${packageName}/LICENSE`)), "files", file));

/**
 * The TrueType font a WOFF 1.0 file wraps (W3C WOFF, section 5): its tables inflated with node's zlib, once at
 * load. Handed the WOFF itself, fontkit inflates every table in pure JavaScript for each document, about 150 ms
 * of the report's layout each time.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.readUInt32BE(0) !== 0x774f4646) throw new Error("not a WOFF file");
  const flavor = woff.readUInt32BE(4);
  const count = woff.readUInt16BE(12);
  const tables = Array.from({ length: count }, (_, i) => {
    const at = 44 + i * 20;
    const [tag, offset, compressed, length, checksum] = [
      woff.readUInt32BE(at),
      woff.readUInt32BE(at + 4),
      woff.readUInt32BE(at + 8),
      woff.readUInt32BE(at + 12),
      woff.readUInt32BE(at + 16),
    ];
    const stored = woff.subarray(offset, offset + compressed);
    return { tag, checksum, data: compressed < length ? inflateSync(stored) : stored };
  });
  const power = 2 ** Math.floor(Math.log2(count));
  const header = Buffer.alloc(12 + count * 16);
  header.writeUInt32BE(flavor, 0);
  header.writeUInt16BE(count, 4);
  header.writeUInt16BE(power * 16, 6);
  header.writeUInt16BE(Math.log2(power), 8);
  header.writeUInt16BE(count * 16 - power * 16, 10);
  let offset = header.length;
  const bodies: Buffer[] = [];
  for (const [i, table] of tables.entries()) {
    header.writeUInt32BE(table.tag, 12 + i * 16);
    header.writeUInt32BE(table.checksum, 16 + i * 16);
    header.writeUInt32BE(offset, 20 + i * 16);
    header.writeUInt32BE(table.data.length, 24 + i * 16);
    const padded = Buffer.alloc((table.data.length + 3) & ~3);
    table.data.copy(padded);
    bodies.push(padded);
    offset += padded.length;
  }
  return Buffer.concat([header, ...bodies]);
}

/**
 * The report's fonts, embedded (subset) in every PDF as PDF/A requires: Noto Sans and Noto Sans Mono, their
 * Latin subset (every letter of English, French, Spanish and German, and the punctuation, € and dashes).
 * Read and unwrapped once per process.
 */
export const REPORT_FONTS = {
  regular: woffToSfnt(fontFile("@fontsource/noto-sans", "noto-sans-latin-400-normal.woff")),
  bold: woffToSfnt(fontFile("@fontsource/noto-sans", "noto-sans-latin-700-normal.woff")),
  mono: woffToSfnt(fontFile("@fontsource/noto-sans-mono", "noto-sans-mono-latin-400-normal.woff")),
};
