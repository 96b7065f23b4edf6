import { catalogNumber, firstPageNumber, objectText, type PdfRevision, readRevision, resolvedArray, resolvedDictionary } from "../pdf/pdf-revision.ts";
import { dictionaryEntries, referencedObject } from "../pdf/pdf-syntax.ts";

/** What a DSS dictionary may hold (ETSI EN 319 142-1, 5.4.2): validation data, nothing a reader shows. */
const DSS_KEYS = new Set(["/Type", "/Certs", "/CRLs", "/OCSPs", "/VRI"]);
/** Trailer entries an incremental update rewrites; any other (/Root, /Info, /Encrypt, /ID) stays. */
const TRAILER_UPDATED = new Set(["/Size", "/Prev", "/XRefStm"]);

const entriesOf = (revision: PdfRevision, number: number) => dictionaryEntries(objectText(revision, number), 0).entries;
const normalized = (value: string | undefined) => value?.replace(/\s+/g, " ").trim();

/** The keys whose values differ between two versions of a dictionary, but those `allowed` to change. */
function changedKeys(before: Map<string, string>, after: Map<string, string>, allowed: string[]): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => !allowed.includes(key) && normalized(before.get(key)) !== normalized(after.get(key)));
}

/** The elements `after` adds at the end of `before`'s; null when it drops or reorders any. */
function appended(before: string[], after: string[]): string[] | null {
  const old = before.map(normalized);
  return after.length >= before.length && after.slice(0, before.length).every((element, index) => normalized(element) === old[index])
    ? after.slice(before.length)
    : null;
}

/**
 * The rule a PAdES seal (a DocMDP P=2 certification, or an approval signature read as strictly) sets for what
 * follows it: after the seal's revision, only validation data (the DSS) and document timestamps (an invisible
 * signature widget whose value is a /DocTimeStamp) may be added. `sealed` is the file up to the end of the
 * seal's revision, `latest` the whole file read. Objects written after the seal that existed at the seal may
 * only be the catalog (its /DSS added), the first page (its /Annots grown by those widgets) and the form (its
 * /Fields grown by the same); a new object is reachable only through those. Returns what breaks the rule, or
 * null: a page's content, a picture or an annotation drawn after the seal (a stamped overlay) is refused here
 * even when a fresh document timestamp covers it.
 */
export function revisionRule(sealed: Uint8Array, latest: PdfRevision): string | null {
  const atSeal = readRevision(sealed);
  const sealEnd = sealed.byteLength;
  const existing = Number(atSeal.trailer.get("/Size"));
  const changedTrailer = changedKeys(atSeal.trailer, latest.trailer, [...TRAILER_UPDATED]);
  if (changedTrailer.length > 0) return `the trailer's ${changedTrailer.join(", ")} changed`;
  const catalog = catalogNumber(atSeal);
  const page = firstPageNumber(atSeal);
  const form = referencedObject(entriesOf(atSeal, catalog).get("/AcroForm") ?? "");
  let widgets: string[] = [];
  let fields: string[] = [];
  for (const [number, offset] of latest.offsets) {
    if (offset < sealEnd || number >= existing) continue;
    const [before, after] = [entriesOf(atSeal, number), entriesOf(latest, number)];
    if (number === catalog) {
      const changed = changedKeys(before, after, ["/DSS"]);
      if (changed.length > 0) return `the catalog's ${changed.join(", ")} changed`;
      const dss = after.get("/DSS");
      const extra = dss === undefined ? [] : [...resolvedDictionary(latest, dss).keys()].filter((key) => !DSS_KEYS.has(key));
      if (extra.length > 0) return `the DSS holds ${extra.join(", ")}, which is not validation data`;
    } else if (number === page) {
      const changed = changedKeys(before, after, ["/Annots"]);
      if (changed.length > 0) return `the first page's ${changed.join(", ")} changed`;
      const added = appended(resolvedArray(atSeal, before.get("/Annots")), resolvedArray(latest, after.get("/Annots")));
      if (added === null) return "the first page's annotations were removed or reordered";
      widgets = added;
    } else if (number === form) {
      const changed = changedKeys(before, after, ["/Fields"]);
      if (changed.length > 0) return `the form's ${changed.join(", ")} changed`;
      const added = appended(resolvedArray(atSeal, before.get("/Fields")), resolvedArray(latest, after.get("/Fields")));
      if (added === null) return "the form's fields were removed or reordered";
      fields = added;
    } else return `object ${number}, written before the seal, was written again`;
  }
  if (widgets.map(normalized).sort().join() !== fields.map(normalized).sort().join())
    return "the annotations added to the first page are not the signature fields added to the form";
  for (const widget of widgets) {
    const entries = resolvedDictionary(latest, widget);
    const rectangle = resolvedArray(latest, entries.get("/Rect")).map(Number);
    const value = entries.get("/V");
    const isTimestamp = value !== undefined && resolvedDictionary(latest, value).get("/Type") === "/DocTimeStamp";
    if (entries.get("/FT") !== "/Sig" || entries.has("/AP") || rectangle.some((side) => side !== 0) || !isTimestamp)
      return `annotation ${widget} is not an invisible document timestamp's field`;
  }
  return null;
}
