/**
 * Just enough PDF syntax (ISO 32000-1, 7.2-7.3) to read the dictionaries an incremental update changes: the
 * extent of one value, and a dictionary's entries as their source text. The file is read as latin1, so an
 * index into the text is an offset into the bytes.
 */

const WHITESPACE = new Set(["\0", "\t", "\n", "\f", "\r", " "]);
const DELIMITERS = new Set(["(", ")", "<", ">", "[", "]", "{", "}", "/", "%"]);

export class PdfSyntaxError extends Error {}

/** The index of the first character at or after `at` that is neither white space nor in a comment. */
export function skipSpace(text: string, at: number): number {
  let index = at;
  while (index < text.length) {
    const char = text[index]!;
    if (WHITESPACE.has(char)) index++;
    else if (char === "%") while (index < text.length && text[index] !== "\n" && text[index] !== "\r") index++;
    else break;
  }
  return index;
}

/** The end of a run of regular characters (a name's, a number's or a keyword's). */
function regularEnd(text: string, at: number): number {
  let index = at;
  while (index < text.length && !WHITESPACE.has(text[index]!) && !DELIMITERS.has(text[index]!)) index++;
  return index;
}

/** A literal string's end, after its closing parenthesis: balanced parentheses, backslash escapes. */
function literalStringEnd(text: string, at: number): number {
  let depth = 0;
  for (let index = at; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") index++;
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return index + 1;
  }
  throw new PdfSyntaxError("unterminated string");
}

/** The end of the value starting at `at` (white space skipped first); `N G R` is one value. */
export function valueEnd(text: string, at: number): number {
  const start = skipSpace(text, at);
  const char = text[start];
  if (char === undefined) throw new PdfSyntaxError("value expected at end of file");
  if (text.startsWith("<<", start)) return dictionaryEntries(text, start).end;
  if (char === "<") {
    const close = text.indexOf(">", start);
    if (close < 0) throw new PdfSyntaxError("unterminated hexadecimal string");
    return close + 1;
  }
  if (char === "(") return literalStringEnd(text, start);
  if (char === "[") {
    let index = skipSpace(text, start + 1);
    while (text[index] !== "]") {
      if (index >= text.length) throw new PdfSyntaxError("unterminated array");
      index = skipSpace(text, valueEnd(text, index));
    }
    return index + 1;
  }
  if (char === "/") return regularEnd(text, start + 1);
  const end = regularEnd(text, start);
  if (end === start) throw new PdfSyntaxError(`unexpected ${JSON.stringify(char)} at ${start}`);
  // An indirect reference: two unsigned integers and R.
  const reference = /^\s+\d+\s+R(?=[\s<>[\]()/%]|$)/.exec(text.slice(end, end + 32));
  return /^\d+$/.test(text.slice(start, end)) && reference ? end + reference[0].length : end;
}

/** A dictionary's entries, each key (with its slash) and its value's source text, in order; and where it ends. */
export function dictionaryEntries(text: string, at: number): { entries: Map<string, string>; end: number } {
  let index = skipSpace(text, at);
  if (!text.startsWith("<<", index)) throw new PdfSyntaxError(`dictionary expected at ${index}`);
  index = skipSpace(text, index + 2);
  const entries = new Map<string, string>();
  while (!text.startsWith(">>", index)) {
    if (text[index] !== "/") throw new PdfSyntaxError(`name expected at ${index}`);
    const keyEnd = regularEnd(text, index + 1);
    const valueStart = skipSpace(text, keyEnd);
    const end = valueEnd(text, valueStart);
    entries.set(text.slice(index, keyEnd), text.slice(valueStart, end));
    index = skipSpace(text, end);
    if (index >= text.length) throw new PdfSyntaxError("unterminated dictionary");
  }
  return { entries, end: index + 2 };
}

/**
 * The first key written twice in one dictionary, anywhere in the value at `at` (nested dictionaries and arrays
 * included), or null. dictionaryEntries keeps the last; a reader that keeps the first would read another value.
 */
export function repeatedKey(text: string, at = 0): string | null {
  const start = skipSpace(text, at);
  if (text.startsWith("<<", start)) {
    const keys = new Set<string>();
    let index = skipSpace(text, start + 2);
    while (!text.startsWith(">>", index)) {
      if (text[index] !== "/") throw new PdfSyntaxError(`name expected at ${index}`);
      const keyEnd = regularEnd(text, index + 1);
      // `/Cont#65nts` is `/Contents` to a reader (ISO 32000-1, 7.3.5).
      const key = text.slice(index, keyEnd).replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      if (keys.has(key)) return key;
      keys.add(key);
      const repeated = repeatedKey(text, keyEnd);
      if (repeated !== null) return repeated;
      index = skipSpace(text, valueEnd(text, keyEnd));
      if (index >= text.length) throw new PdfSyntaxError("unterminated dictionary");
    }
    return null;
  }
  if (text[start] !== "[") return null;
  for (let index = skipSpace(text, start + 1); text[index] !== "]"; index = skipSpace(text, valueEnd(text, index))) {
    if (index >= text.length) throw new PdfSyntaxError("unterminated array");
    const repeated = repeatedKey(text, index);
    if (repeated !== null) return repeated;
  }
  return null;
}

/** An array's elements as their source text. */
export function arrayElements(text: string): string[] {
  const start = skipSpace(text, 0);
  if (text[start] !== "[") throw new PdfSyntaxError("array expected");
  const elements: string[] = [];
  let index = skipSpace(text, start + 1);
  while (text[index] !== "]") {
    if (index >= text.length) throw new PdfSyntaxError("unterminated array");
    const end = valueEnd(text, index);
    elements.push(text.slice(index, end));
    index = skipSpace(text, end);
  }
  return elements;
}

/** The object number of an indirect reference (`12 0 R`), or null when the value is a direct object. */
export function referencedObject(value: string): number | null {
  const match = /^(\d+)\s+\d+\s+R$/.exec(value.trim());
  return match ? Number(match[1]) : null;
}

/** A dictionary written back from its entries. */
export const dictionaryText = (entries: Map<string, string>) => `<<${[...entries].map(([key, value]) => `${key} ${value}`).join(" ")}>>`;
