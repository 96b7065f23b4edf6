import { arrayElements, dictionaryEntries, PdfSyntaxError, referencedObject, skipSpace, valueEnd } from "./pdf-syntax.ts";

/**
 * A complete PDF as an incremental update sees it (ISO 32000-1, 7.5.6): the latest trailer, where each object's
 * latest version starts, and the offset of the latest cross-reference section. Only classic cross-reference
 * tables are read (what pdfkit and this module write); a cross-reference stream is refused, never guessed at. A
 * trailer's /XRefStm (a hybrid file) is not followed: a judge of what an update wrote refuses it (`sections`).
 */
export interface PdfRevision {
  bytes: Uint8Array;
  /** The file as latin1: an index into it is an offset into `bytes`. */
  text: string;
  trailer: Map<string, string>;
  xrefOffset: number;
  offsets: Map<number, number>;
  /** The generation each object's latest version is written with (its in-use entry's). */
  generations: Map<number, number>;
  /** Every cross-reference section, newest first, as written (so a judge can read what one update wrote). */
  sections: CrossReferenceSection[];
}

/** One classic cross-reference section and its trailer: its rows as written, free ones included. */
export interface CrossReferenceSection {
  /** Where its `xref` keyword starts. */
  offset: number;
  rows: { number: number; offset: number; generation: number; inUse: boolean }[];
  trailer: Map<string, string>;
  /** Where its trailer's dictionary starts. */
  trailerAt: number;
}

/**
 * The bytes as ISO 8859-1, one character a byte (what Node's "latin1" gives): TextDecoder's "latin1" is
 * windows-1252, which turns 0x80-0x9f into other characters and would change a dictionary written back.
 */
export function latin1Text(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.byteLength; at += 0x8000) text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return text;
}

/** Reads the file's cross-reference sections, newest first, following /Prev. */
export function readRevision(bytes: Uint8Array): PdfRevision {
  const text = latin1Text(bytes);
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text.slice(-1024));
  if (!startxref) throw new PdfSyntaxError("no startxref at the end of the file");
  const xrefOffset = Number(startxref[1]);
  const offsets = new Map<number, number>();
  const generations = new Map<number, number>();
  const sections: CrossReferenceSection[] = [];
  for (let at: number | null = xrefOffset; at !== null; ) {
    if (sections.some((section) => section.offset === at)) throw new PdfSyntaxError("cross-reference sections form a loop");
    const section = readXrefSection(text, at);
    sections.push(section);
    // A newer section's entry wins; a free row hides nothing older here (a judge refuses it where it matters).
    for (const row of section.rows)
      if (row.inUse && !offsets.has(row.number)) {
        offsets.set(row.number, row.offset);
        generations.set(row.number, row.generation);
      }
    const previous = section.trailer.get("/Prev");
    at = previous === undefined ? null : Number(previous);
  }
  return { bytes, text, trailer: sections[0]!.trailer, xrefOffset, offsets, generations, sections };
}

/** One `xref` table and its trailer. */
function readXrefSection(text: string, at: number): CrossReferenceSection {
  let index = skipSpace(text, at);
  if (!text.startsWith("xref", index)) throw new PdfSyntaxError("only classic cross-reference tables are read (a cross-reference stream was found)");
  index += 4;
  const subsection = /\s*(\d+)\s+(\d+)[ \t]*\r?\n?/y;
  const entry = /(\d{10}) (\d{5}) ([nf])\s{1,2}/y;
  const rows: CrossReferenceSection["rows"] = [];
  for (;;) {
    subsection.lastIndex = index;
    const header = subsection.exec(text);
    if (!header) break;
    const first = Number(header[1]);
    index = subsection.lastIndex;
    for (let number = first; number < first + Number(header[2]); number++) {
      entry.lastIndex = skipSpace(text, index);
      const row = entry.exec(text);
      if (!row) throw new PdfSyntaxError(`malformed cross-reference entry for object ${number}`);
      index = entry.lastIndex;
      rows.push({ number, offset: Number(row[1]), generation: Number(row[2]), inUse: row[3] === "n" });
    }
  }
  index = skipSpace(text, index);
  if (!text.startsWith("trailer", index)) throw new PdfSyntaxError("trailer expected after the cross-reference table");
  const trailerAt = skipSpace(text, index + 7);
  const { entries } = dictionaryEntries(text, trailerAt);
  return { offset: at, rows, trailer: entries, trailerAt };
}

/**
 * Where object `number`'s latest version starts, after its `N G obj` header: the header must start at the offset
 * its entry gives (after white space), with that number, not the tail of a longer one ("6 0 obj" inside
 * "16 0 obj"), and that entry's generation.
 */
function objectBodyStart(revision: PdfRevision, number: number): number {
  const offset = revision.offsets.get(number);
  if (offset === undefined) throw new PdfSyntaxError(`object ${number} is not in the cross-reference table`);
  const header = /\s*(\d+)\s+(\d+)\s+obj(?=[\0\t\n\f\r <>[\]()/%]|$)/y;
  header.lastIndex = offset;
  const match = header.exec(revision.text);
  const delimited = offset === 0 || /[\0\t\n\f\r ]/.test(revision.text[offset - 1] ?? "") || /^[\0\t\n\f\r ]/.test(revision.text[offset] ?? "");
  if (!match || !delimited || Number(match[1]) !== number || Number(match[2]) !== revision.generations.get(number))
    throw new PdfSyntaxError(`object ${number} is not where the cross-reference table says`);
  return header.lastIndex;
}

/** The source text of object `number`'s latest version (what lies between `obj` and `endobj`). */
export function objectText(revision: PdfRevision, number: number): string {
  const start = objectBodyStart(revision, number);
  return revision.text.slice(start, valueEnd(revision.text, start));
}

/** A dictionary, direct or the object a reference names. */
export function resolvedDictionary(revision: PdfRevision, value: string): Map<string, string> {
  const number = referencedObject(value);
  return dictionaryEntries(number === null ? value : objectText(revision, number), 0).entries;
}

/** An array, direct or the object a reference names; absent: empty. */
export function resolvedArray(revision: PdfRevision, value: string | undefined): string[] {
  if (value === undefined) return [];
  const number = referencedObject(value);
  return arrayElements(number === null ? value : objectText(revision, number));
}

/** The catalog's object number (the trailer's /Root). */
export function catalogNumber(revision: PdfRevision): number {
  const root = referencedObject(revision.trailer.get("/Root") ?? "");
  if (root === null) throw new PdfSyntaxError("the trailer names no catalog");
  return root;
}

/** The first page's object number, down the page tree's first kids. */
export function firstPageNumber(revision: PdfRevision): number {
  let node = referencedObject(resolvedDictionary(revision, `${catalogNumber(revision)} 0 R`).get("/Pages") ?? "");
  for (let depth = 0; node !== null && depth < 32; depth++) {
    const entries = resolvedDictionary(revision, `${node} 0 R`);
    if (entries.get("/Type") === "/Page") return node;
    node = referencedObject(resolvedArray(revision, entries.get("/Kids"))[0] ?? "");
  }
  throw new PdfSyntaxError("the document has no page");
}

/** A stream object's dictionary and its bytes as stored (still filtered), from its latest version. */
export function objectStream(revision: PdfRevision, number: number): { dictionary: Map<string, string>; bytes: Uint8Array } {
  const { entries, end } = dictionaryEntries(revision.text, objectBodyStart(revision, number));
  const keyword = /\s*stream(\r\n|\n)/y;
  keyword.lastIndex = end;
  if (!keyword.exec(revision.text)) throw new PdfSyntaxError(`object ${number} is not a stream`);
  const lengthValue = entries.get("/Length") ?? "";
  const lengthObject = referencedObject(lengthValue);
  const length = Number(lengthObject === null ? lengthValue : objectText(revision, lengthObject));
  if (!Number.isSafeInteger(length) || length < 0 || keyword.lastIndex + length > revision.bytes.byteLength)
    throw new PdfSyntaxError(`object ${number}'s stream length is not usable`);
  return { dictionary: entries, bytes: revision.bytes.subarray(keyword.lastIndex, keyword.lastIndex + length) };
}

/** A string object's bytes: literal (with its escapes) or hexadecimal. */
export function stringBytes(value: string): Uint8Array {
  const source = value.trim();
  if (source.startsWith("<")) {
    const digits = source.slice(1, -1).replace(/\s/g, "");
    return Uint8Array.from({ length: Math.ceil(digits.length / 2) }, (_, index) => Number.parseInt(digits.slice(index * 2, index * 2 + 2).padEnd(2, "0"), 16));
  }
  if (!source.startsWith("(")) throw new PdfSyntaxError("string expected");
  const bytes: number[] = [];
  const escapes: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, "(": 40, ")": 41, "\\": 92 };
  for (let index = 1; index < source.length - 1; index++) {
    const char = source[index]!;
    if (char !== "\\") {
      bytes.push(char.charCodeAt(0));
      continue;
    }
    const next = source[++index] ?? "";
    const octal = /^[0-7]{1,3}/.exec(source.slice(index, index + 3));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8) & 0xff);
      index += octal[0].length - 1;
    } else if (next === "\r" || next === "\n") {
      if (next === "\r" && source[index + 1] === "\n") index++;
    } else bytes.push(escapes[next] ?? next.charCodeAt(0));
  }
  return new Uint8Array(bytes);
}

/** A text string (ISO 32000-1, 7.9.2.2): UTF-16BE after its byte order mark, else one character a byte. */
export function textString(value: string): string {
  const bytes = stringBytes(value);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  return latin1Text(bytes);
}
