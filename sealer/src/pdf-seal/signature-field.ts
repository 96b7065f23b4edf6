import type { UpdatedObject } from "./incremental-update.ts";
import { catalogNumber, firstPageNumber, objectText, type PdfRevision, resolvedArray, resolvedDictionary } from "./pdf-revision.ts";
import { dictionaryEntries, dictionaryText, referencedObject } from "./pdf-syntax.ts";

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
 */
export function signatureFieldObjects(revision: PdfRevision, name: string, signature: string): UpdatedObject[] {
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
  const existing = catalog.get("/AcroForm");
  const form = existing === undefined ? new Map<string, string>() : resolvedDictionary(revision, existing);
  form.set("/Fields", `[${[...resolvedArray(revision, form.get("/Fields")), field].join(" ")}]`);
  // SignaturesExist and AppendOnly: a reader keeps later changes to incremental updates.
  form.set("/SigFlags", "3");
  const formNumber = existing === undefined ? null : referencedObject(existing);
  if (formNumber !== null) return [...objects, { number: formNumber, body: dictionaryText(form) }];
  if (existing !== undefined) return [...objects, catalogWith(revision, "/AcroForm", dictionaryText(form))];
  const newForm = next + 2;
  return [...objects, { number: newForm, body: dictionaryText(form) }, catalogWith(revision, "/AcroForm", `${newForm} 0 R`)];
}
