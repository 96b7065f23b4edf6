import { placeholders, signedUpdate } from "../../../sealer/src/pdf-seal/byte-range.ts";
import { appendUpdate, streamBody } from "../../../sealer/src/pdf-seal/incremental-update.ts";
import { catalogNumber, firstPageNumber, objectText, readRevision, resolvedArray, resolvedDictionary } from "../../../sealer/src/pdf-seal/pdf-revision.ts";
import { arrayElements, dictionaryEntries, dictionaryText, referencedObject } from "../../../sealer/src/pdf-seal/pdf-syntax.ts";
import { signatureFieldObjects } from "../../../sealer/src/pdf-seal/signature-field.ts";
import { obtainTimestampOfDigest } from "../../../sealer/src/tsa/obtain-timestamp.ts";
import type { TimestampAuthority } from "../../../sealer/src/tsa/authority.ts";

/**
 * What a forger appends to a sealed report (forger finding R2, docs/adr/0057), with the sealer's own writer:
 * an overlay drawn over the first page, a fresh document timestamp from an authority anyone can ask, the
 * last revision cut off. Shared by the sealer's tests of the judge and the e2e forgeries on real reports.
 */

export const FORGED_TEXT = "NOT VERIFIED: forged overlay";

const draw = `q 1 1 1 rg 0 560 595 282 re f Q BT /Forged 28 Tf 40 760 Td (${FORGED_TEXT}) Tj ET`;

/** `pdf` with an incremental update drawing a white box and FORGED_TEXT over the first page, through a content stream and a font of its own. */
export function withOverlay(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const page = firstPageNumber(revision);
  const entries = dictionaryEntries(objectText(revision, page), 0).entries;
  const size = Number(revision.trailer.get("/Size"));
  const [font, stream] = [size, size + 1];
  const resources = resolvedDictionary(revision, entries.get("/Resources")!);
  const fonts = resources.has("/Font") ? resolvedDictionary(revision, resources.get("/Font")!) : new Map<string, string>();
  fonts.set("/Forged", `${font} 0 R`);
  resources.set("/Font", dictionaryText(fonts));
  entries.set("/Resources", dictionaryText(resources));
  const contents = entries.get("/Contents")!;
  entries.set("/Contents", `[${referencedObject(contents) === null ? contents.slice(1, -1) : contents} ${stream} 0 R]`);
  return appendUpdate(revision, [
    { number: font, body: "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>" },
    { number: stream, body: streamBody(new Uint8Array(Buffer.from(draw, "latin1"))) },
    { number: page, body: dictionaryText(entries) },
  ]);
}

/**
 * `pdf` (sealed, with a DSS) whose first page's first content stream is rewritten in place (same object number)
 * with the overlay's drawing and listed in the DSS as an OCSP response: the page dictionary is not written.
 */
export function withContentHiddenInDss(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const stream = firstContentStream(pdf);
  const dssNumber = referencedObject(resolvedDictionary(revision, `${catalogNumber(revision)} 0 R`).get("/DSS")!)!;
  const dss = resolvedDictionary(revision, `${dssNumber} 0 R`);
  dss.set("/OCSPs", `[${stream} 0 R]`);
  return appendUpdate(revision, [
    { number: stream, body: streamBody(new Uint8Array(Buffer.from(draw.replace("/Forged 28 Tf ", ""), "latin1"))) },
    { number: dssNumber, body: dictionaryText(dss) },
  ]);
}

/** `pdf` with a FreeText annotation saying FORGED_TEXT over the first page: the page changes only by /Annots grown. */
export function withTextAnnotation(pdf: Uint8Array): Uint8Array {
  const revision = readRevision(pdf);
  const page = firstPageNumber(revision);
  const entries = dictionaryEntries(objectText(revision, page), 0).entries;
  const annotation = Number(revision.trailer.get("/Size"));
  entries.set("/Annots", `[${[...resolvedArray(revision, entries.get("/Annots")), `${annotation} 0 R`].join(" ")}]`);
  return appendUpdate(revision, [
    {
      number: annotation,
      body: `<</Type /Annot /Subtype /FreeText /Rect [40 700 555 800] /Contents (${FORGED_TEXT}) /DA (/Helv 28 Tf 1 0 0 rg) /F 4 /P ${page} 0 R>>`,
    },
    { number: page, body: dictionaryText(entries) },
  ]);
}

/**
 * `pdf` with a document timestamp appended, from `authority` (any of its customers gets one) over the whole
 * file; `widgetRect` other than the sealer's zero rectangle makes its widget visible.
 */
export async function withDocumentTimestamp(
  pdf: Uint8Array,
  authority: TimestampAuthority,
  name = "Document timestamp 2",
  widgetRect = "[0 0 0 0]",
): Promise<Uint8Array> {
  const revision = readRevision(pdf);
  const value = `<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${placeholders(12_000)}>>`;
  const objects = signatureFieldObjects(revision, name, value).map(({ number, body }) => ({
    number,
    body: typeof body === "string" ? body.replace("/Rect [0 0 0 0]", `/Rect ${widgetRect}`) : body,
  }));
  return signedUpdate(revision, objects, async (digest) => (await obtainTimestampOfDigest(authority, "SHA-256", digest)).token);
}

/**
 * `pdf` with an update whose cross-reference section is `entry` for object `number` (20 bytes, e.g.
 * `0000000000 00001 f\r\n` to free it, or an offset into the earlier bytes) and nothing else written.
 */
export function withCrossReferenceEntry(pdf: Uint8Array, number: number, entry: string): Uint8Array {
  const revision = readRevision(pdf);
  const trailer = new Map(revision.trailer);
  trailer.set("/Prev", String(revision.xrefOffset));
  const section = `xref\n${number} 1\n${entry}trailer\n${dictionaryText(trailer)}\nstartxref\n${pdf.byteLength}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([pdf, Buffer.from(section, "latin1")]));
}

/** The object number of the first page's first content stream. */
export function firstContentStream(pdf: Uint8Array): number {
  const revision = readRevision(pdf);
  const contents = dictionaryEntries(objectText(revision, firstPageNumber(revision)), 0).entries.get("/Contents")!;
  return referencedObject(contents) ?? referencedObject(arrayElements(contents)[0]!)!;
}

/** `pdf` without its last revision (the bytes up to its last %%EOF but one): a sealed report without its document timestamp. */
export function withoutLastRevision(pdf: Uint8Array): Uint8Array {
  const eofs = [
    ...Buffer.from(pdf)
      .toString("latin1")
      .matchAll(/%%EOF\r?\n?/g),
  ].map((match) => match.index + match[0].length);
  return new Uint8Array(pdf.subarray(0, eofs.at(-2)));
}
