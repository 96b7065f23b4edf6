import { catalogNumber, firstPageNumber, objectText, type PdfRevision, readRevision, resolvedArray, resolvedDictionary } from "../pdf/pdf-revision.ts";
import { dictionaryEntries, referencedObject, repeatedKey } from "../pdf/pdf-syntax.ts";

/** What a DSS dictionary may hold (ETSI EN 319 142-1, 5.4.2): validation data, nothing a reader shows. */
const DSS_KEYS = new Set(["/Type", "/Certs", "/CRLs", "/OCSPs", "/VRI"]);
/** Trailer entries an incremental update rewrites; any other (/Root, /Info, /Encrypt, /ID) stays. */
const TRAILER_UPDATED = new Set(["/Size", "/Prev"]);
/** What a document timestamp's widget may carry (docs/adr/0057, as the sealer writes it): no appearance, no action. */
const WIDGET_KEYS = new Set(["/FT", "/T", "/V", "/Type", "/Subtype", "/Rect", "/F", "/P"]);

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
 * The objects the cross-reference sections written after the seal list (each with its newest offset), or why
 * those sections are refused (docs/adr/0057, rule 2): each names no cross-reference stream and no encryption,
 * frees no object (but the list's head, 0), points only at bytes after the seal (an entry pointing into the
 * sealed bytes makes an old body, or the tail of another object's header, the latest version), and the oldest
 * has the seal's own section as /Prev.
 */
function writtenAfterSeal(atSeal: PdfRevision, latest: PdfRevision, sealEnd: number): Map<number, number> | string {
  const written = new Map<number, number>();
  let index = 0;
  for (; index < latest.sections.length && latest.sections[index]!.offset >= sealEnd; index++) {
    const section = latest.sections[index]!;
    const named = ["/XRefStm", "/Encrypt"].filter((key) => section.trailer.has(key));
    if (named.length > 0) return `a trailer names ${named.join(", ")}`;
    const repeated = repeatedKey(latest.text, section.trailerAt);
    if (repeated !== null) return `a trailer holds ${repeated} twice`;
    for (const row of section.rows) {
      if (!row.inUse) {
        if (row.number !== 0) return `object ${row.number} was freed`;
      } else if (row.offset < sealEnd) return `object ${row.number} was pointed at bytes before the seal`;
      else if (!written.has(row.number)) written.set(row.number, row.offset);
    }
  }
  if (latest.sections[index]?.offset !== atSeal.xrefOffset) return "the updates do not follow the seal's revision (/Prev)";
  return written;
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
  const written = writtenAfterSeal(atSeal, latest, sealEnd);
  if (typeof written === "string") return written;
  let widgets: string[] = [];
  let fields: string[] = [];
  for (const number of written.keys()) {
    // A reader keeping a repeated key's first value would read what this rule does not (it keeps the last).
    const repeated = repeatedKey(objectText(latest, number));
    if (repeated !== null) return `object ${number} holds ${repeated} twice`;
    if (number >= existing) continue;
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
    const number = referencedObject(widget);
    if (number === null || number < existing || !written.has(number)) return `annotation ${widget} is not an object new after the seal`;
    const entries = entriesOf(latest, number);
    const extra = [...entries.keys()].filter((key) => !WIDGET_KEYS.has(key));
    if (extra.length > 0) return `the document timestamp's field ${widget} holds ${extra.join(", ")} (only ${[...WIDGET_KEYS].join(" ")} may follow a seal)`;
    const rectangle = resolvedArray(latest, entries.get("/Rect")).map(Number);
    const value = entries.get("/V");
    const isTimestamp = value !== undefined && resolvedDictionary(latest, value).get("/Type") === "/DocTimeStamp";
    const isWidget = entries.get("/Subtype") === "/Widget" && (entries.get("/Type") ?? "/Annot") === "/Annot";
    if (entries.get("/FT") !== "/Sig" || !isWidget || rectangle.some((side) => side !== 0) || !isTimestamp)
      return `annotation ${widget} is not an invisible document timestamp's field`;
  }
  return null;
}
