import type { PdfRevision } from "./pdf-revision.ts";

/** An object of an update: its number and what stands between `obj` and `endobj` (a stream's bytes included). */
export interface UpdatedObject {
  number: number;
  body: string | Uint8Array;
}

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));

/** A stream object's body: its bytes, unfiltered, with their length. */
export const streamBody = (bytes: Uint8Array): Uint8Array => Buffer.concat([latin1(`<</Length ${bytes.byteLength}>>\nstream\n`), bytes, latin1("\nendstream")]);

/**
 * Appends an incremental update (ISO 32000-1, 7.5.6) to `revision`: the objects, a cross-reference section
 * listing only them, and a trailer whose /Prev is the previous section; the bytes before stay as they were,
 * so every earlier signature still covers what it covered. Returns the whole file.
 */
export function appendUpdate(revision: PdfRevision, objects: UpdatedObject[]): Uint8Array {
  const { bytes } = revision;
  const parts: Uint8Array[] = [bytes];
  let length = bytes.byteLength;
  const push = (part: Uint8Array) => {
    parts.push(part);
    length += part.byteLength;
  };
  if (bytes[bytes.byteLength - 1] !== 0x0a) push(latin1("\n"));
  const offsets = new Map<number, number>();
  for (const { number, body } of [...objects].sort((a, b) => a.number - b.number)) {
    offsets.set(number, length);
    push(latin1(`${number} 0 obj\n`));
    push(typeof body === "string" ? latin1(body) : body);
    push(latin1("\nendobj\n"));
  }
  const xrefOffset = length;
  // One subsection per run of consecutive numbers; each entry exactly 20 bytes.
  const numbers = [...offsets.keys()];
  let table = "xref\n";
  for (let start = 0; start < numbers.length; ) {
    let end = start + 1;
    while (end < numbers.length && numbers[end] === numbers[end - 1]! + 1) end++;
    table += `${numbers[start]} ${end - start}\n`;
    for (const number of numbers.slice(start, end)) table += `${String(offsets.get(number)).padStart(10, "0")} 00000 n\r\n`;
    start = end;
  }
  const trailer = new Map(revision.trailer);
  trailer.delete("/XRefStm");
  trailer.set("/Size", String(Math.max(Number(revision.trailer.get("/Size")), ...numbers.map((number) => number + 1))));
  trailer.set("/Prev", String(revision.xrefOffset));
  table += `trailer\n<<${[...trailer].map(([key, value]) => `${key} ${value}`).join(" ")}>>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  push(latin1(table));
  return new Uint8Array(Buffer.concat(parts));
}
