import { beforeAll, describe, expect, it } from "vitest";
import { appendUpdate, streamBody } from "../../sealer/src/pdf-seal/incremental-update.ts";
import { signatureFieldObjects } from "../../sealer/src/pdf-seal/signature-field.ts";
import {
  catalogNumber,
  firstPageNumber,
  objectText,
  type PdfRevision,
  readRevision,
  resolvedArray,
  resolvedDictionary,
} from "../../shared/pdf/pdf-revision.ts";
import { arrayElements, dictionaryEntries, dictionaryText, referencedObject } from "../../shared/pdf/pdf-syntax.ts";
import { revisionRule } from "../../shared/verification/report-revisions.ts";
import { PACKAGE_A } from "./fixtures/sealed-reports.ts";

/**
 * The revision rule of the one verification core (shared/verification/report-revisions.ts, docs/adr/0057) on
 * the forger's session-3 updates (H1, H2, H3, O1, O2), written on a genuine sealed report (fixture A) after its
 * seal. Re-stamping (any customer of the authority gets a token) is left out here: the rule judges what the
 * updates write, whatever covers them; the e2e forgeries stamp them again and run proof-verify.
 */

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const base64Bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
const entriesOf = (revision: PdfRevision, number: number) => dictionaryEntries(objectText(revision, number), 0).entries;

let report: Uint8Array;
/** The report up to the end of its seal's revision (the seal's /ByteRange end). */
let sealed: Uint8Array;
/** The report without its document timestamp: where a forger writes, then stamps again. */
let cut: Uint8Array;

/** The updates' verdict on `pdf`, as the core's report check reads it: null when allowed, else why not. */
const ruling = (pdf: Uint8Array) => revisionRule(sealed, readRevision(pdf));

/** The first page's first content stream's object number. */
function firstContentStream(revision: PdfRevision): number {
  const contents = entriesOf(revision, firstPageNumber(revision)).get("/Contents")!;
  return referencedObject(contents) ?? referencedObject(arrayElements(contents)[0]!)!;
}

/** `pdf` with an update of one cross-reference section `rows` (each a `first count` header or a 20-byte row) and its trailer, after `body`. */
function withSection(pdf: Uint8Array, body: string, rows: (offsetOfBody: number) => string, trailerExtra = ""): Uint8Array {
  const revision = readRevision(pdf);
  const trailer = new Map(revision.trailer);
  trailer.set("/Prev", String(revision.xrefOffset));
  const bodyAt = pdf.byteLength;
  const xrefAt = bodyAt + body.length;
  const section = `xref\n${rows(bodyAt)}trailer\n${dictionaryText(trailer).slice(0, -2)}${trailerExtra}>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([pdf, latin1(body + section)]));
}

const row = (offset: number, generation: number, kind: "n" | "f") => `${String(offset).padStart(10, "0")} ${String(generation).padStart(5, "0")} ${kind}\r\n`;

/** A document timestamp's field as the sealer writes it (its token left empty), `widgetExtra` added to its widget. */
function withTimestampField(pdf: Uint8Array, widgetExtra = ""): Uint8Array {
  const revision = readRevision(pdf);
  const value = "<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 /ByteRange [0 0 0 0] /Contents <00>>>";
  const objects = signatureFieldObjects(revision, "Document timestamp 2", value).map(({ number, body }) => ({
    number,
    body: typeof body === "string" ? body.replace("/Rect [0 0 0 0]", `/Rect [0 0 0 0]${widgetExtra}`) : body,
  }));
  return appendUpdate(revision, objects);
}

beforeAll(async () => {
  const json = await new Response(new Blob([base64Bytes(PACKAGE_A)]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  report = base64Bytes((JSON.parse(json) as Record<string, string>)["report.pdf"]!);
  const revision = readRevision(report);
  const fields = resolvedArray(revision, resolvedDictionary(revision, entriesOf(revision, catalogNumber(revision)).get("/AcroForm")!).get("/Fields"));
  const seal = fields
    .map((field) => resolvedDictionary(revision, resolvedDictionary(revision, field).get("/V")!))
    .find((value) => value.get("/SubFilter") === "/ETSI.CAdES.detached")!;
  const [, , gapEnd, tail] = resolvedArray(revision, seal.get("/ByteRange")).map(Number);
  sealed = report.subarray(0, gapEnd! + tail!);
  const ends = [
    ...Buffer.from(report)
      .toString("latin1")
      .matchAll(/%%EOF\r?\n?/g),
  ].map((match) => match.index + match[0].length);
  cut = report.slice(0, ends.at(-2));
});

describe("what may follow the seal: the genuine report and a renewal", () => {
  it("accepts the genuine report (DSS then a document timestamp) and one more document timestamp (a B-LTA renewal)", () => {
    expect(ruling(report)).toBeNull();
    expect(ruling(cut)).toBeNull();
    expect(ruling(withTimestampField(report))).toBeNull();
  });
});

describe("cross-reference sections after the seal (forger findings H1, H2, O1)", () => {
  it("H1: refuses a table whose trailer names a cross-reference stream (/XRefStm) giving a sealed content stream a new body", () => {
    const revision = readRevision(cut);
    const content = firstContentStream(revision);
    const size = Number(revision.trailer.get("/Size"));
    const forgedBody = `${content} 0 obj\n${Buffer.from(streamBody(latin1("q 1 1 1 rg 0 0 595 842 re f Q"))).toString("latin1")}\nendobj\n`;
    const streamAt = cut.byteLength + forgedBody.length;
    const entry = Buffer.alloc(7);
    entry.writeUInt8(1, 0);
    entry.writeUInt32BE(cut.byteLength, 1);
    const xrefStream = `${size} 0 obj\n<</Type /XRef /Size ${size + 1} /W [1 4 2] /Index [${content} 1] /Length 7>>\nstream\n${entry.toString("latin1")}\nendstream\nendobj\n`;
    const forged = withSection(cut, forgedBody + xrefStream, () => `${size} 1\n${row(streamAt, 0, "n")}`, ` /XRefStm ${streamAt}`);
    expect(ruling(forged)).toMatch(/\/XRefStm/);
    // Stamped again: the last trailer names no /XRefStm, the update's does (what qpdf and poppler follow).
    expect(ruling(withTimestampField(forged))).toBe("a trailer names /XRefStm");
  });

  it("refuses /Encrypt named in a trailer after the seal", () => {
    const forged = withSection(cut, "", () => "", " /Encrypt <</Filter /Standard>>");
    expect(ruling(forged)).toMatch(/\/Encrypt/);
  });

  it("H2: refuses an entry pointing a sealed object into the sealed bytes, at the tail of a longer number's header", () => {
    const revision = readRevision(cut);
    const text = Buffer.from(cut).toString("latin1");
    // An object numbered 11-19 whose header holds a shorter number's: "16 0 obj" read from its "6".
    const longer = [11, 12, 13, 14, 15, 16, 17, 18, 19].find((number) => revision.offsets.has(number))!;
    const shorter = longer - 10;
    const tail = text.indexOf(`\n${longer} 0 obj`, revision.offsets.get(longer)! - 1) + 2;
    const forged = withSection(cut, "", () => `${shorter} 1\n${row(tail, 0, "n")}`);
    expect(() => objectText(readRevision(forged), shorter)).toThrow(`object ${shorter} is not where the cross-reference table says`);
    expect(ruling(forged)).toBe(`object ${shorter} was pointed at bytes before the seal`);
  });

  it("H2: refuses an entry pointing the first page back at its version before the seal (its own sealed body)", () => {
    const revision = readRevision(cut);
    const page = firstPageNumber(revision);
    const forged = withSection(cut, "", () => `${page} 1\n${row(revision.offsets.get(page)!, 0, "n")}`);
    expect(ruling(forged)).toBe(`object ${page} was pointed at bytes before the seal`);
  });

  it("reads an object only with its entry's generation", () => {
    const revision = readRevision(cut);
    const content = firstContentStream(revision);
    const body = `${content} 0 obj\n<</Length 0>>\nstream\n\nendstream\nendobj\n`;
    const forged = withSection(cut, body, (at) => `${content} 1\n${row(at, 1, "n")}`);
    expect(() => objectText(readRevision(forged), content)).toThrow(`object ${content} is not where the cross-reference table says`);
  });

  it("O1: refuses an entry freeing a sealed object after the seal", () => {
    const content = firstContentStream(readRevision(cut));
    const forged = withSection(cut, "", () => `${content} 1\n${row(0, 1, "f")}`);
    expect(ruling(forged)).toBe(`object ${content} was freed`);
  });
});

describe("what an update after the seal writes (forger findings H3, O2)", () => {
  it("H3: refuses a document timestamp's widget with an action, or an appearance characteristic", () => {
    expect(ruling(withTimestampField(report, " /AA <</PO <</S /JavaScript /JS (app.alert\\(1\\))>>>>"))).toMatch(/holds \/AA \(only \/FT/);
    expect(ruling(withTimestampField(report, " /MK <</BG [1 0 0]>>"))).toMatch(/holds \/MK/);
    expect(ruling(withTimestampField(report, " /A <</S /URI /URI (https://example.com)>>"))).toMatch(/holds \/A /);
  });

  it("O2: refuses a dictionary written after the seal with a key twice (the first /Contents a forged stream)", () => {
    const revision = readRevision(cut);
    const page = firstPageNumber(revision);
    const body = dictionaryText(entriesOf(revision, page));
    const forged = appendUpdate(revision, [{ number: page, body: `<</Contents 9999 0 R ${body.slice(2)}` }]);
    expect(ruling(forged)).toBe(`object ${page} holds /Contents twice`);
    const escaped = appendUpdate(revision, [{ number: page, body: `<</Cont#65nts 9999 0 R ${body.slice(2)}` }]);
    expect(ruling(escaped)).toBe(`object ${page} holds /Contents twice`);
    expect(ruling(withSection(cut, "", () => "", " /Size 1"))).toBe("a trailer holds /Size twice");
  });
});
