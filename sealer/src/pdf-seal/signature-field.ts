import type { UpdatedObject } from "./incremental-update.ts";
import { catalogNumber, firstPageNumber, objectText, type PdfRevision, resolvedArray, resolvedDictionary } from "./pdf-revision.ts";
import { dictionaryEntries, dictionaryText, referencedObject } from "./pdf-syntax.ts";

/**
 * A certification signature's /Reference (ISO 32000-1, 12.8.2.2, DocMDP with /P 2): after it, a reader accepts
 * only filling in forms, signing (document timestamps included) and, as PAdES adds (ETSI EN 319 142-1, 5.4),
 * the DSS; any other change, such as page content, is flagged as breaking the certification.
 */
export const CERTIFIES_NO_CHANGES_BUT_SIGNATURES =
  "/Reference [<</Type /SigRef /TransformMethod /DocMDP /TransformParams <</Type /TransformParams /P 2 /V /1.2>>>>]";

/** The catalog's latest version with `key` set to `value`. */
export function catalogWith(revision: PdfRevision, key: string, value: string): UpdatedObject {
  const number = catalogNumber(revision);
  const entries = dictionaryEntries(objectText(revision, number), 0).entries;
  entries.set(key, value);
  return { number, body: dictionaryText(entries) };
}

/**
 * The objects that add a signature field named `name` whose value is `signature` (a /Sig or /DocTimeStamp
 * dictionary): the value, the field merged with its widget, the interactive form listing it (made if the
 * document has none) and the first page listing the widget. The widget is invisible (a zero rectangle, which
 * PDF/A lets go without an appearance) and flagged Print and Locked, as PDF/A asks of every annotation.
 * `certifies`: the signature is the document's certification signature (its dictionary then carries
 * CERTIFIES_NO_CHANGES_BUT_SIGNATURES), which the catalog's /Perms /DocMDP names (ISO 32000-1, 12.8.2.2).
 */
export function signatureFieldObjects(revision: PdfRevision, name: string, signature: string, certifies = false): UpdatedObject[] {
  const next = Number(revision.trailer.get("/Size"));
  const [signatureNumber, fieldNumber] = [next, next + 1];
  const field = `${fieldNumber} 0 R`;
  const page = firstPageNumber(revision);
  const pageEntries = dictionaryEntries(objectText(revision, page), 0).entries;
  pageEntries.set("/Annots", `[${[...resolvedArray(revision, pageEntries.get("/Annots")), field].join(" ")}]`);
  const objects: UpdatedObject[] = [
    { number: signatureNumber, body: signature },
    {
      number: fieldNumber,
      body: `<</FT /Sig /T (${name}) /V ${signatureNumber} 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P ${page} 0 R>>`,
    },
    { number: page, body: dictionaryText(pageEntries) },
  ];
  const catalog = dictionaryEntries(objectText(revision, catalogNumber(revision)), 0).entries;
  const catalogBefore = dictionaryText(catalog);
  const existing = catalog.get("/AcroForm");
  const form = existing === undefined ? new Map<string, string>() : resolvedDictionary(revision, existing);
  form.set("/Fields", `[${[...resolvedArray(revision, form.get("/Fields")), field].join(" ")}]`);
  // SignaturesExist and AppendOnly: a reader keeps later changes to incremental updates.
  form.set("/SigFlags", "3");
  const formNumber = existing === undefined ? null : referencedObject(existing);
  if (formNumber !== null) objects.push({ number: formNumber, body: dictionaryText(form) });
  else if (existing !== undefined) catalog.set("/AcroForm", dictionaryText(form));
  else {
    objects.push({ number: next + 2, body: dictionaryText(form) });
    catalog.set("/AcroForm", `${next + 2} 0 R`);
  }
  if (certifies) catalog.set("/Perms", `<</DocMDP ${signatureNumber} 0 R>>`);
  if (dictionaryText(catalog) !== catalogBefore) objects.push({ number: catalogNumber(revision), body: dictionaryText(catalog) });
  return objects;
}
