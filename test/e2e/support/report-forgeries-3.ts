import { inflateSync } from "node:zlib";
import { placeholders, signedUpdate } from "../../../sealer/src/pdf-seal/byte-range.ts";
import { signatureFieldObjects } from "../../../sealer/src/pdf-seal/signature-field.ts";
import type { TimestampAuthority } from "../../../sealer/src/tsa/authority.ts";
import { obtainTimestampOfDigest } from "../../../sealer/src/tsa/obtain-timestamp.ts";
import { appendUpdate, streamBody, type UpdatedObject } from "../../../sealer/src/pdf-seal/incremental-update.ts";
import {
  catalogNumber,
  firstPageNumber,
  objectStream,
  objectText,
  type PdfRevision,
  readRevision,
  resolvedArray,
  resolvedDictionary,
} from "../../../sealer/src/pdf-seal/pdf-revision.ts";
import { dictionaryEntries, dictionaryText, referencedObject } from "../../../sealer/src/pdf-seal/pdf-syntax.ts";
import { FORGED_TEXT, firstContentStream, withCrossReferenceEntry } from "./pdf-forgeries.ts";

/**
 * More of what a forger appends to a sealed report after its seal (forger session 3, docs/adr/0057), each an
 * update a DocMDP P=2 certification does not allow: a stamp whose appearance hides the warnings box, a page
 * added, a form field filled in, an object of the sealed revision written again with the same bytes. Each is
 * written on the report without its document timestamp; the caller stamps it again, as a forger would.
 */

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const entriesOf = (revision: PdfRevision, number: number) => dictionaryEntries(objectText(revision, number), 0).entries;

/** What hides the first page's verdict and warnings: a white box and FORGED_TEXT in Helvetica (the appearance's own font). */
const hiding = `q 1 1 1 rg 0 0 515 250 re f Q BT /Helv 24 Tf 0 0.5 0 rg 10 120 Td (${FORGED_TEXT}) Tj ET`;

/** The first page with `annotation` appended to its /Annots. */
function firstPageWithAnnotation(revision: PdfRevision, annotation: number): UpdatedObject {
  const page = firstPageNumber(revision);
  const entries = entriesOf(revision, page);
  entries.set("/Annots", `[${[...resolvedArray(revision, entries.get("/Annots")), `${annotation} 0 R`].join(" ")}]`);
  return { number: page, body: dictionaryText(entries) };
}

/** A Stamp annotation over the top of the first page whose appearance stream draws `hiding`: only the page's /Annots grows. */
export function withStampAppearance(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const size = Number(revision.trailer.get("/Size"));
  const [font, appearance, stamp] = [size, size + 1, size + 2];
  const form = `<</Type /XObject /Subtype /Form /BBox [0 0 515 250] /Resources <</Font <</Helv ${font} 0 R>>>> /Length ${hiding.length}>>\nstream\n${hiding}\nendstream`;
  return appendUpdate(revision, [
    { number: font, body: "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>" },
    { number: appearance, body: latin1(form) },
    {
      number: stamp,
      body: `<</Type /Annot /Subtype /Stamp /Rect [40 560 555 810] /F 4 /AP <</N ${appearance} 0 R>> /P ${firstPageNumber(revision)} 0 R>>`,
    },
    firstPageWithAnnotation(revision, stamp),
  ]);
}

/** A page drawing `hiding` added at the end of the page tree: the tree's root gets a kid and a count more. */
export function withAddedPage(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const pages = referencedObject(entriesOf(revision, catalogNumber(revision)).get("/Pages")!)!;
  const tree = entriesOf(revision, pages);
  const size = Number(revision.trailer.get("/Size"));
  const [font, content, page] = [size, size + 1, size + 2];
  tree.set("/Kids", `[${[...resolvedArray(revision, tree.get("/Kids")), `${page} 0 R`].join(" ")}]`);
  tree.set("/Count", String(Number(tree.get("/Count")) + 1));
  return appendUpdate(revision, [
    { number: font, body: "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>" },
    { number: content, body: streamBody(latin1(hiding)) },
    {
      number: page,
      body: `<</Type /Page /Parent ${pages} 0 R /MediaBox [0 0 595.28 841.89] /Contents ${content} 0 R /Resources <</Font <</Helv ${font} 0 R>>>>>>`,
    },
    { number: pages, body: dictionaryText(tree) },
  ]);
}

/** A text field filled in with FORGED_TEXT, its widget visible over the first page, listed in the form and on the page. */
export function withFilledTextField(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const form = referencedObject(entriesOf(revision, catalogNumber(revision)).get("/AcroForm")!)!;
  const formEntries = entriesOf(revision, form);
  const field = Number(revision.trailer.get("/Size"));
  formEntries.set("/Fields", `[${[...resolvedArray(revision, formEntries.get("/Fields")), `${field} 0 R`].join(" ")}]`);
  return appendUpdate(revision, [
    {
      number: field,
      body: `<</FT /Tx /T (Verdict) /V (${FORGED_TEXT}) /DA (/Helv 24 Tf 0 0.5 0 rg) /MK <</BG [1 1 1]>> /Type /Annot /Subtype /Widget /Rect [40 700 555 800] /F 4 /P ${firstPageNumber(revision)} 0 R>>`,
    },
    { number: form, body: dictionaryText(formEntries) },
    firstPageWithAnnotation(revision, field),
  ]);
}

/** The first page's first content stream written again in an update, byte for byte as sealed. */
export function withContentRewrittenAsIs(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const number = firstContentStream(pdf);
  const { dictionary, bytes } = objectStream(revision, number);
  const head = dictionaryText(dictionary);
  return appendUpdate(revision, [{ number, body: new Uint8Array(Buffer.concat([latin1(`${head}\nstream\n`), bytes, latin1("\nendstream")])) }]);
}

/** The catalog written again, unchanged but for an /OpenAction that opens on the last page (the annex), past the verdict. */
export function withOpenActionToLastPage(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const catalog = catalogNumber(revision);
  const entries = entriesOf(revision, catalog);
  const kids = resolvedArray(revision, resolvedDictionary(revision, entries.get("/Pages")!).get("/Kids"));
  entries.set("/OpenAction", `[${kids.at(-1)} /Fit]`);
  return appendUpdate(revision, [{ number: catalog, body: dictionaryText(entries) }]);
}

/** The attachment `name` (manifest.json, manifest.p7s, proof.tsr) written again with `bytes`, as another proof's would be. */
export function withAttachmentReplaced(pdf: Uint8Array, name: string, bytes: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const names = resolvedDictionary(revision, entriesOf(revision, catalogNumber(revision)).get("/Names")!);
  const listed = resolvedArray(revision, resolvedDictionary(revision, names.get("/EmbeddedFiles")!).get("/Names"));
  const filespec = listed[listed.indexOf(`(${name})`) + 1]!;
  const stream = referencedObject(resolvedDictionary(revision, resolvedDictionary(revision, filespec).get("/EF")!).get("/F")!)!;
  const head = `<</Type /EmbeddedFile /Length ${bytes.byteLength}>>\nstream\n`;
  return appendUpdate(revision, [{ number: stream, body: new Uint8Array(Buffer.concat([latin1(head), bytes, latin1("\nendstream")])) }]);
}

/**
 * The first page's first content stream redefined only in a cross-reference stream that the update's trailer names
 * (/XRefStm, a hybrid file): readers that honour it (poppler, qpdf) show `hiding` appended to the page; a reader of
 * classic tables only sees the sealed stream (forger session 3, H1).
 */
export function withXrefStreamShadow(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const number = firstContentStream(pdf);
  const { dictionary, bytes } = objectStream(revision, number);
  const content = Buffer.concat([
    dictionary.get("/Filter")?.includes("Flate") ? inflateSync(bytes) : Buffer.from(bytes),
    Buffer.from(`\n${hiding}\n`, "latin1"),
  ]);
  const size = Number(revision.trailer.get("/Size"));
  const parts: Uint8Array[] = [pdf, latin1("\n")];
  let at = pdf.byteLength + 1;
  const push = (part: Uint8Array) => {
    parts.push(part);
    at += part.byteLength;
  };
  const streamAt = at;
  push(Buffer.concat([latin1(`${number} 0 obj\n<</Length ${content.byteLength}>>\nstream\n`), content, latin1("\nendstream\nendobj\n")]));
  const row = Buffer.alloc(7);
  row[0] = 1;
  row.writeUInt32BE(streamAt, 1);
  const xrefStreamAt = at;
  push(
    Buffer.concat([
      latin1(`${size} 0 obj\n<</Type /XRef /Size ${size + 1} /W [1 4 2] /Index [${number} 1] /Length 7>>\nstream\n`),
      row,
      latin1("\nendstream\nendobj\n"),
    ]),
  );
  const trailer = new Map(revision.trailer);
  trailer.set("/Size", String(size + 1));
  trailer.set("/Prev", String(revision.xrefOffset));
  trailer.set("/XRefStm", String(xrefStreamAt));
  const table = at;
  push(latin1(`xref\n${size} 1\n${String(xrefStreamAt).padStart(10, "0")} 00000 n\r\ntrailer\n${dictionaryText(trailer)}\nstartxref\n${table}\n%%EOF\n`));
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * Object `number` pointed, by a cross-reference row after the seal, at the sealed body of object `other` whose
 * number ends with its digits ("6 0 obj" read inside "16 0 obj"): no byte of content added (H2).
 */
export function withObjectAliased(pdf: Uint8Array, number: number, other: number): Uint8Array {
  const offset = readRevision(pdf).offsets.get(other)!;
  const at = Buffer.from(pdf).toString("latin1").indexOf(`${other} 0 obj`, offset) + String(other).length - String(number).length;
  return withCrossReferenceEntry(pdf, number, `${String(at).padStart(10, "0")} 00000 n\r\n`);
}

/**
 * A new stream that nothing references, whose bytes hide a forged version of the first page's content stream,
 * then that stream's row freed: poppler, missing the object, rebuilds its table by scanning and takes the last
 * "<n> 0 obj" in the file, the hidden one (H4).
 */
export function withHiddenObjectAndFreedRow(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const number = firstContentStream(pdf);
  const hidden = Buffer.concat([latin1(`\n${number} 0 obj\n<</Length ${hiding.length}>>\nstream\n${hiding}\nendstream\nendobj\n`)]);
  const withHidden = appendUpdate(revision, [{ number: Number(revision.trailer.get("/Size")), body: streamBody(new Uint8Array(hidden)) }]);
  return withCrossReferenceEntry(withHidden, number, "0000000000 00001 f\r\n");
}

/**
 * A document timestamp appended, from `authority`, to a file whose last trailer names /XRefStm (withXrefStreamShadow),
 * which readRevision refuses to read: read with the key renamed (same length, same offsets), stamped over the real bytes.
 */
export async function withDocumentTimestampOverXrefStream(pdf: Uint8Array, authority: TimestampAuthority): Promise<Uint8Array> {
  const text = Buffer.from(pdf).toString("latin1");
  const revision = readRevision(new Uint8Array(Buffer.from(text.replaceAll("/XRefStm", "/XRefStX"), "latin1")));
  revision.trailer.delete("/XRefStX");
  const real = { ...revision, bytes: pdf, text };
  const value = `<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${placeholders(12_000)}>>`;
  return signedUpdate(
    real,
    signatureFieldObjects(real, "Document timestamp 2", value),
    async (digest) => (await obtainTimestampOfDigest(authority, "SHA-256", digest)).token,
  );
}

/** The first image XObject of the sealed revision (a photo of the report). */
export function firstImage(pdf: Uint8Array): number {
  const revision = readRevision(pdf);
  const image = [...revision.offsets.keys()]
    .sort((a, b) => a - b)
    .find((number) => {
      try {
        return objectText(revision, number).includes("/Subtype /Image");
      } catch {
        return false;
      }
    });
  if (image === undefined) throw new Error("no image in the report");
  return image;
}

/**
 * H5: sealed object `target` given a row under generation 1 at a copy of a DSS certificate, `target 1 R` added to
 * the DSS's /Certs: a reader holding one entry per number takes (target, 1) and loses the photo.
 */
export function withGenerationShadow(pdf: Uint8Array, target: number): Uint8Array {
  const revision = readRevision(pdf);
  const dssNumber = referencedObject(resolvedDictionary(revision, `${catalogNumber(revision)} 0 R`).get("/DSS")!)!;
  const dss = resolvedDictionary(revision, `${dssNumber} 0 R`);
  const certificate = objectStream(revision, referencedObject(resolvedArray(revision, dss.get("/Certs"))[0]!)!).bytes;
  dss.set("/Certs", `[${[...resolvedArray(revision, dss.get("/Certs")), `${target} 1 R`].join(" ")}]`);
  const withDss = appendUpdate(revision, [{ number: dssNumber, body: dictionaryText(dss) }]);
  const latest = readRevision(withDss);
  const body = Buffer.concat([
    Buffer.from(`${target} 1 obj\n<</Length ${certificate.byteLength}>>\nstream\n`, "latin1"),
    certificate,
    Buffer.from("\nendstream\nendobj\n", "latin1"),
  ]);
  const trailer = new Map(latest.trailer);
  trailer.set("/Prev", String(latest.xrefOffset));
  const at = withDss.byteLength;
  const tail = `xref\n${target} 1\n${String(at).padStart(10, "0")} 00001 n\r\ntrailer\n${dictionaryText(trailer)}\nstartxref\n${at + body.byteLength}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([withDss, body, Buffer.from(tail, "latin1")]));
}
