import { catalogNumber, objectStream, type PdfRevision, readRevision, resolvedArray, resolvedDictionary, textString } from "../pdf/pdf-revision.ts";
import { referencedObject } from "../pdf/pdf-syntax.ts";
import { sameBytes } from "../evidence-record.ts";
import { checkTimestamp } from "../timestamp-check.ts";
import { sha256Hex } from "./digest.ts";
import { checkManifestSeal } from "./manifest-seal.ts";
import { revisionRule } from "./report-revisions.ts";
import type { SealedManifest } from "./sealed-manifest.ts";
import type { VerificationCheck } from "./types.ts";

/** The sealed PDF reports a package may carry (docs/adr/0044): the proof's own, and an after's pair report. */
export const REPORT_ENTRIES = ["report.pdf", "pair-report.pdf"] as const;
export type ReportEntry = (typeof REPORT_ENTRIES)[number];

/** What a report is checked against: the package's own artifacts, once the core has judged them. */
export interface ReportContext {
  manifest: SealedManifest;
  entries: ReadonlyMap<string, Uint8Array>;
  /** manifest.p7s's certificate when that seal holds (chained to the pinned service root at gen_time). */
  sealCertificate: Uint8Array | null;
  /** The service root(s) the seal was checked against (the pinned one when pinned). */
  anchors: Uint8Array[];
  /** proof.tsr's gen_time. */
  genTime: string | null;
  /** SHA-256 of the authority root proof.tsr chains to: the report's document timestamp must chain to the same. */
  tsaRootSha256: string | null;
}

/** One signature field's value as the report's form lists it. */
interface PdfSignature {
  subFilter: string;
  byteRange: number[];
  /** The /Contents hex string as written, brackets included. */
  contents: string;
}

/** The DER value at the start of `bytes` (a signature's /Contents is padded with zeros after it). */
function derValue(bytes: Uint8Array): Uint8Array {
  if (bytes[0] !== 0x30 || bytes.length < 2) return new Uint8Array();
  const first = bytes[1]!;
  if (first < 0x80) return bytes.subarray(0, 2 + first);
  const count = first & 0x7f;
  let length = 0;
  for (let index = 0; index < count; index++) length = length * 256 + (bytes[2 + index] ?? 0);
  return bytes.subarray(0, 2 + count + length);
}

const hexBytes = (hex: string) => Uint8Array.from({ length: hex.length >> 1 }, (_, index) => Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16));

/** The signature fields' values, in the order the form lists them. */
function signatures(revision: PdfRevision): PdfSignature[] {
  const catalog = resolvedDictionary(revision, `${catalogNumber(revision)} 0 R`);
  const form = catalog.get("/AcroForm");
  if (form === undefined) return [];
  const found: PdfSignature[] = [];
  for (const field of resolvedArray(revision, resolvedDictionary(revision, form).get("/Fields"))) {
    const entries = resolvedDictionary(revision, field);
    const value = entries.get("/V");
    if (entries.get("/FT") !== "/Sig" || value === undefined) continue;
    const signature = resolvedDictionary(revision, value);
    found.push({
      subFilter: signature.get("/SubFilter") ?? "",
      byteRange: resolvedArray(revision, signature.get("/ByteRange")).map(Number),
      contents: (signature.get("/Contents") ?? "").trim(),
    });
  }
  return found;
}

/**
 * The bytes a signature signs, when its /ByteRange is two ranges from the start of the file around exactly its
 * own /Contents string and ending at the end of a revision (`%%EOF`); else why not.
 */
function signedBytes(pdf: Uint8Array, text: string, signature: PdfSignature): { bytes: Uint8Array; end: number } | string {
  const [start, gapStart, gapEnd, tail] = signature.byteRange;
  if (signature.byteRange.length !== 4 || !signature.byteRange.every(Number.isSafeInteger) || start !== 0)
    return "its /ByteRange is not two ranges from the start";
  const end = gapEnd! + tail!;
  if (gapStart! <= 0 || gapEnd! <= gapStart! || tail! < 0 || end > pdf.byteLength) return "its /ByteRange lies outside the file";
  if (!signature.contents.startsWith("<") || text.slice(gapStart, gapEnd) !== signature.contents)
    return "the bytes its /ByteRange leaves out are not its own /Contents (something else is left unsigned)";
  if (!/startxref\s+\d+\s+%%EOF\r?\n?$/.test(text.slice(Math.max(0, end - 64), end))) return "its /ByteRange does not end where a revision ends";
  const bytes = new Uint8Array(gapStart! + tail!);
  bytes.set(pdf.subarray(0, gapStart));
  bytes.set(pdf.subarray(gapEnd, end), gapStart);
  return { bytes, end };
}

/** The embedded files by name (the catalog's /Names /EmbeddedFiles tree), decoded when Flate-compressed. */
async function attachments(revision: PdfRevision): Promise<Map<string, Uint8Array>> {
  const names = resolvedDictionary(revision, `${catalogNumber(revision)} 0 R`).get("/Names");
  const tree = names === undefined ? undefined : resolvedDictionary(revision, names).get("/EmbeddedFiles");
  const files = new Map<string, Uint8Array>();
  const visit = async (node: string, depth: number) => {
    const entries = resolvedDictionary(revision, node);
    for (const kid of resolvedArray(revision, entries.get("/Kids"))) if (depth < 8) await visit(kid, depth + 1);
    const pairs = resolvedArray(revision, entries.get("/Names"));
    for (let index = 0; index + 1 < pairs.length; index += 2) {
      const embedded = resolvedDictionary(revision, resolvedDictionary(revision, pairs[index + 1]!).get("/EF") ?? "<<>>").get("/F");
      const number = embedded === undefined ? null : referencedObject(embedded);
      if (number === null) continue;
      const { dictionary, bytes } = objectStream(revision, number);
      const filter = dictionary.get("/Filter");
      files.set(textString(pairs[index]!), filter === undefined ? bytes.slice() : filter === "/FlateDecode" ? await inflated(bytes) : new Uint8Array());
    }
  };
  if (tree !== undefined) await visit(tree, 0);
  return files;
}

async function inflated(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes.slice()]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The attachments a report must carry byte for byte, and what each must be: the package's own file, or a hash the sealed manifest names. */
function expectedAttachments(name: ReportEntry, context: ReportContext): [string, Uint8Array | string][] {
  const own = (prefix: string) =>
    ["manifest.json", "manifest.p7s", "proof.tsr"].flatMap((file): [string, Uint8Array][] => {
      const bytes = context.entries.get(file);
      return bytes === undefined ? [] : [[`${prefix}${file}`, bytes]];
    });
  if (name === "report.pdf") return own("");
  const before = context.manifest.fields.compare_to as { manifest_sha256?: unknown } | null;
  return [...own("after-"), ...(typeof before?.manifest_sha256 === "string" ? [["before-manifest.json", before.manifest_sha256] as [string, string]] : [])];
}

/**
 * `report` / `pair_report`: the package's sealed PDF report is this proof's. Its seal is a PAdES signature by the
 * very certificate that sealed manifest.p7s (so under the pinned service root, of the proof's mode), over
 * the whole document as it was then but its own /Contents; its last signature is a document timestamp over
 * every byte of the file, from the proof's authority (the root proof.tsr chains to); after the seal only
 * validation data and that timestamp were added (report-revisions.ts); and the proof's manifest.json,
 * manifest.p7s and proof.tsr it carries are the package's, byte for byte (a pair report's `after-` files,
 * and its `before-manifest.json` the one the sealed manifest's compare_to names by SHA-256). Absent: not
 * checked (a package downloaded before the report was made, or an older proof's).
 */
export async function checkReport(name: ReportEntry, context: ReportContext): Promise<VerificationCheck> {
  const checkName = name === "report.pdf" ? "report" : "pair_report";
  const check = (result: VerificationCheck["result"], detail: string): VerificationCheck => ({ name: checkName, result, detail });
  const pdf = context.entries.get(name);
  const isAfter = context.manifest.fields.compare_to !== null && context.manifest.fields.compare_to !== undefined;
  if (pdf === undefined)
    return check(
      "not_checked",
      name === "report.pdf"
        ? "no report.pdf in this package (made within a minute of sealing; an earlier download or an older proof has none)"
        : isAfter
          ? "no pair-report.pdf in this package (made within a minute of the after's sealing)"
          : "not an after: no pair report",
    );
  if (name === "pair-report.pdf" && !isAfter) return check("fail", "pair-report.pdf in the package of a proof that is no after: no pair report is made for it");
  if (context.manifest.version < 2) return check("not_checked", `sealed before proofs were sealed as a whole: no manifest.p7s to compare ${name}'s seal with`);
  // manifest_seal fails already: a report compared with a package whose seal does not hold would say nothing more.
  if (context.sealCertificate === null)
    return check("not_checked", `manifest.p7s does not hold (manifest_seal): ${name} is not compared with a package whose own seal fails`);
  const whose = name === "report.pdf" ? "this proof's sealed report" : "the sealed report of this after's pair";
  const failed = (why: string) => check("fail", `${name} is not ${whose}: ${why}`);

  let revision: PdfRevision;
  let found: PdfSignature[];
  try {
    revision = readRevision(pdf);
    found = signatures(revision);
  } catch (error) {
    return failed(`it cannot be read as the PDF the service writes (${(error as Error).message})`);
  }
  const text = revision.text;
  const seals = found.filter((signature) => signature.subFilter === "/ETSI.CAdES.detached");
  const stamps = found.filter((signature) => signature.subFilter === "/ETSI.RFC3161");
  if (seals.length !== 1 || stamps.length === 0 || found.length !== seals.length + stamps.length)
    return failed(
      `the service writes one PAdES seal followed by document timestamps; it holds ${seals.length} seal(s), ${stamps.length} document timestamp(s), ${found.length} signature(s) in all`,
    );

  const sealed = signedBytes(pdf, text, seals[0]!);
  if (typeof sealed === "string") return failed(`its seal: ${sealed}`);
  const at = context.genTime === null ? null : new Date(context.genTime);
  const cms = derValue(hexBytes(seals[0]!.contents.slice(1, -1)));
  const seal = await checkManifestSeal(cms, sealed.bytes, context.anchors, at, { seal: `${name}'s seal`, content: "its signed byte range" });
  if (!seal.ok) return failed(seal.detail);
  if (seal.certificate === null || !sameBytes(seal.certificate, context.sealCertificate))
    return failed(`its seal is by ${seal.seal?.signer_subject ?? "another certificate"}, not by the certificate that sealed manifest.p7s`);

  // Each document timestamp (one as sealed; a renewal adds another) covers a revision after the seal's, and the
  // last covers every byte of the file.
  let coveredTo = sealed.end;
  for (const stamp of stamps) {
    const stamped = signedBytes(pdf, text, stamp);
    if (typeof stamped === "string") return failed(`its document timestamp: ${stamped}`);
    if (stamped.end <= sealed.end) return failed("a document timestamp covers less than the seal");
    const token = await checkTimestamp(
      derValue(hexBytes(stamp.contents.slice(1, -1))),
      stamped.bytes,
      new TextDecoder().decode(context.entries.get("chain.pem")),
    );
    const tokenRoot = token.rootCertificate === null ? null : await sha256Hex(token.rootCertificate);
    if (!token.imprintMatches) return failed("its document timestamp does not cover the document's bytes");
    if (!token.signatureValid || !token.signerCertifiedForTimestamping || !token.chainTrusted || tokenRoot === null || tokenRoot !== context.tsaRootSha256)
      return failed("its document timestamp is not a valid token of the proof's authority (the root proof.tsr chains to)");
    coveredTo = Math.max(coveredTo, stamped.end);
  }
  if (coveredTo !== pdf.byteLength) return failed("its last document timestamp does not cover the whole file (bytes were added after it)");

  let changed: string | null;
  try {
    changed = revisionRule(pdf.subarray(0, sealed.end), revision);
  } catch (error) {
    changed = `its revisions cannot be read (${(error as Error).message})`;
  }
  if (changed !== null) return failed(`after its seal, ${changed}: only validation data and a document timestamp may follow a seal`);

  let carried: Map<string, Uint8Array>;
  try {
    carried = await attachments(revision);
  } catch (error) {
    return failed(`its attachments cannot be read (${(error as Error).message})`);
  }
  for (const [file, expected] of expectedAttachments(name, context)) {
    const bytes = carried.get(file);
    if (bytes === undefined) return failed(`it does not carry ${file}`);
    const equal = typeof expected === "string" ? (await sha256Hex(bytes)) === expected : sameBytes(bytes, expected);
    if (!equal)
      return failed(
        typeof expected === "string"
          ? `the ${file} it carries is not the before's manifest the sealed manifest names (compare_to)`
          : `the ${file} it carries is not this package's ${file.replace(/^after-/, "")}`,
      );
  }
  return check(
    "pass",
    `${name} is ${whose}: sealed by the certificate that sealed manifest.p7s, its document timestamp from the proof's authority over every byte, nothing but validation data added after the seal, and ${expectedAttachments(
      name,
      context,
    )
      .map(([file]) => file)
      .join(", ")} attached as in this package`,
  );
}
