import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { placeholders, SignatureSpaceError, signedUpdate } from "../src/pdf-seal/byte-range.ts";
import { sealPdf } from "../src/pdf-seal/index.ts";
import { readRevision } from "../src/pdf-seal/pdf-revision.ts";
import { arrayElements, dictionaryEntries, PdfSyntaxError, referencedObject } from "../src/pdf-seal/pdf-syntax.ts";
import { pdfsig, pdfsigTrusting, qpdfCheck, signatureReport, validatePdf } from "../../test/e2e/support/pdf-judges.ts";
import {
  firstContentStream,
  withContentHiddenInDss,
  withCrossReferenceEntry,
  withDocumentTimestamp,
  withOverlay,
  withoutLastRevision,
  withTextAnnotation,
} from "../../test/e2e/support/pdf-forgeries.ts";
import { unsignedPdf } from "./pdf-fixture.ts";
import { pem, sealContext } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "pdf-seal-"));
const written = (name: string, bytes: Uint8Array | string) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};
const roots = {
  test: { seal: written("c2pa-test-root.pem", pem("c2pa-test-root.pem")), tsa: written("tsa-test-root.pem", pem("tsa-test-root.pem")) },
  live: { seal: written("c2pa-root.pem", pem("c2pa-root.pem")), tsa: written("tsa-live-root.pem", pem("tsa-live-root.pem")) },
};

const unsigned = await unsignedPdf();
const sealedTest = await sealPdf(unsigned, sealContext("test"));
const testPath = written("sealed-test.pdf", sealedTest);

test("sealing appends to the PDF: the unsigned bytes are the sealed file's beginning, unchanged", () => {
  assert.ok(sealedTest.byteLength > unsigned.byteLength);
  assert.deepEqual(sealedTest.subarray(0, unsigned.byteLength), unsigned);
});

test("pdfsig: the seal is a valid ETSI.CAdES.detached signature by the test identity, the document timestamp covers the whole document", () => {
  const result = pdfsig(testPath);
  assert.equal(result.status, 0, result.stderr);
  const seal = signatureReport(result.stdout, 1);
  assert.match(seal, /Signature Field Name: Seal/);
  assert.match(seal, /Signer Certificate Common Name: Test Proof Seal - TEST ONLY - NO LEGAL VALUE/);
  assert.match(seal, /Signature Type: ETSI\.CAdES\.detached/);
  assert.match(seal, /Signature Validation: Signature is Valid\./);
  const documentTimestamp = signatureReport(result.stdout, 2);
  assert.match(documentTimestamp, /Signature Field Name: Document timestamp/);
  assert.match(documentTimestamp, /Total document signed/);
  assert.equal(signatureReport(result.stdout, 3), "", "two signatures, the document timestamp last");
});

test("pdfsig given the service root: NSS trusts the seal's certificate (emailProtection beside documentSigning, docs/adr/0054)", () => {
  const result = pdfsigTrusting(testPath, roots.test.seal);
  assert.equal(result.status, 0, result.stderr);
  // With documentSigning alone, NSS says "Certificate Validation: Unknown issue".
  assert.match(signatureReport(result.stdout, 1), /Certificate Validation: Certificate is Trusted\./);
  // The other mode's root is no anchor for it.
  assert.doesNotMatch(signatureReport(pdfsigTrusting(testPath, roots.live.seal).stdout, 1), /Certificate is Trusted/);
});

test("qpdf --check finds no error in the sealed PDF", () => {
  const result = qpdfCheck(testPath);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /No syntax or stream encoding errors found/);
});

test("PDFBox and Bouncy Castle: seal, signature timestamp and document timestamp valid, chained to the test roots through the DSS", () => {
  const result = validatePdf(testPath, roots.test.seal, roots.test.tsa);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  for (const finding of [
    /ok {3}the DSS holds \d+ CRLs/,
    /ok {3}signature ETSI\.CAdES\.detached: CMS signature and message digest valid over the byte range, by CN=Test Proof Seal/,
    /ok {3}signature ETSI\.CAdES\.detached: no signingTime \(PAdES\)/,
    /ok {3}signature ETSI\.CAdES\.detached: signature timestamp token signature valid/,
    /ok {3}signature ETSI\.CAdES\.detached: seal certificate chains to CN=Test C2PA Root.*not revoked per the DSS's CRLs/,
    /ok {3}signature ETSI\.RFC3161: document timestamp imprint is the SHA-256 of what it stamps/,
    /ok {3}signature ETSI\.RFC3161: document timestamp signer chains to CN=Simulated TSA Root/,
    /ok {3}the last signature \(ETSI\.RFC3161\) covers the whole document/,
    /ok {3}the seal certifies the document: catalog \/Perms \/DocMDP, \/Reference DocMDP \/P 2/,
    /ok {3}the updates after the seal write only what PAdES allows after it \(\d+ objects\)/,
  ])
    assert.match(result.stdout, finding);
});

test("a test report's seal does not chain to the live root", () => {
  const result = validatePdf(testPath, roots.live.seal, roots.test.tsa);
  assert.equal(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stdout, /FAIL signature ETSI\.CAdES\.detached: seal certificate chains to CN=Local C2PA Root.*unable to find valid certification path/);
});

test("one byte changed in the signed bytes: pdfsig reports the seal invalid", () => {
  const tampered = sealedTest.slice();
  const at = Buffer.from(tampered).indexOf("595.28");
  assert.ok(at > 0 && at < unsigned.byteLength);
  tampered[at + 5] = "9".charCodeAt(0);
  const result = pdfsig(written("tampered.pdf", tampered));
  const seal = signatureReport(result.stdout, 1);
  assert.match(seal, /Signature Validation: Digest Mismatch\./);
});

test("one byte changed after the seal: pdfsig cannot tell (it leaves ETSI.RFC3161 unverified), the document timestamp's imprint can", () => {
  const tampered = sealedTest.slice();
  const at = Buffer.from(tampered).lastIndexOf("/Type /DSS");
  tampered[at + 7] = "d".charCodeAt(0);
  const path = written("tampered-after-seal.pdf", tampered);
  const report = pdfsig(path).stdout;
  assert.match(signatureReport(report, 1), /Signature is Valid\./);
  assert.match(signatureReport(report, 2), /Signature Validation: Signature has not yet been verified\./);
  const result = validatePdf(path, roots.test.seal, roots.test.tsa);
  assert.equal(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stdout, /FAIL signature ETSI\.RFC3161: document timestamp imprint is the SHA-256 of what it stamps/);
});

test("a live report is sealed by the live identity, its chains valid to the live roots", async () => {
  const path = written("sealed-live.pdf", await sealPdf(unsigned, sealContext("live")));
  assert.match(signatureReport(pdfsig(path).stdout, 1), /Signature Validation: Signature is Valid\./);
  assert.doesNotMatch(signatureReport(pdfsig(path).stdout, 1), /TEST ONLY/);
  const result = validatePdf(path, roots.live.seal, roots.live.tsa);
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

test("a sealed PDF sealed again keeps every signature valid (the existing form and annotations are extended)", async () => {
  const twice = await sealPdf(sealedTest, sealContext("test"));
  const report = pdfsig(written("sealed-twice.pdf", twice)).stdout;
  assert.match(signatureReport(report, 1), /Signature is Valid\./);
  assert.match(signatureReport(report, 3), /Signature is Valid\./);
  assert.match(signatureReport(report, 4), /Total document signed/);
  assert.equal(qpdfCheck(written("sealed-twice-check.pdf", twice)).status, 0);
});

test("the seal certifies the document with DocMDP P=2 (docs/adr/0057); a second seal only approves", async () => {
  const text = Buffer.from(sealedTest).toString("latin1");
  const seal =
    /(\d+) 0 obj\n<<\/Type \/Sig [^\n]*\/Reference \[<<\/Type \/SigRef \/TransformMethod \/DocMDP \/TransformParams <<\/Type \/TransformParams \/P 2 \/V \/1\.2>>>>\]/.exec(
      text,
    );
  assert.ok(seal, "the seal's /Reference");
  assert.match(text, new RegExp(`/Type /Catalog .*/Perms <</DocMDP ${seal[1]} 0 R>>`));
  const twice = Buffer.from(await sealPdf(sealedTest, sealContext("test"))).toString("latin1");
  assert.equal(twice.match(/\/TransformMethod \/DocMDP/g)?.length, 1);
});

const sealedTestAuthority = sealContext("test").authority;
const judgedUnderTestRoots = (name: string, bytes: Uint8Array) => validatePdf(written(name, bytes), roots.test.seal, roots.test.tsa);
const REFUSED_UPDATE = /^FAIL the updates after the seal write only what PAdES allows after it: /m;

test("forger finding R2: the document timestamp cut off, an overlay appended and stamped again by the same authority: PDFBox refuses the update", async () => {
  const forged = await withDocumentTimestamp(withOverlay(withoutLastRevision(sealedTest)), sealedTestAuthority);
  const result = judgedUnderTestRoots("r2-shadow.pdf", forged);
  assert.equal(result.status, 1, result.stdout);
  assert.match(result.stdout, REFUSED_UPDATE);
  // Every signature is still valid: only the rule tells.
  assert.doesNotMatch(result.stdout.replace(REFUSED_UPDATE, ""), /^FAIL/m);
});

test("a content stream of the sealed revision rewritten and listed in the DSS, then stamped: refused", async () => {
  const forged = await withDocumentTimestamp(withContentHiddenInDss(withoutLastRevision(sealedTest)), sealedTestAuthority);
  const result = judgedUnderTestRoots("dss-hidden.pdf", forged);
  assert.equal(result.status, 1, result.stdout);
  assert.match(
    result.stdout,
    /^FAIL the updates after the seal write only what PAdES allows after it: object \d+ \(in the DSS\) overwrites an object of the sealed revision$/m,
  );
});

test("a text annotation added to the first page (its /Annots grown, as a signature widget grows it), then stamped: refused", async () => {
  const forged = await withDocumentTimestamp(withTextAnnotation(withoutLastRevision(sealedTest)), sealedTestAuthority);
  const result = judgedUnderTestRoots("annotation.pdf", forged);
  assert.equal(result.status, 1, result.stdout);
  assert.match(
    result.stdout,
    /^FAIL the updates after the seal write only what PAdES allows after it: object \d+ \(Annot\) is not one PAdES allows after the seal$/m,
  );
});

test("updates after the seal that free an object, point into the sealed bytes or show a timestamp's widget, then stamped: refused", async () => {
  const cut = withoutLastRevision(sealedTest);
  const stream = firstContentStream(cut);
  const catalogAt = Buffer.from(cut).indexOf(`\n${readRevision(cut).trailer.get("/Root")!.split(" ")[0]} 0 obj`) + 1;
  const cases: [string, Uint8Array, RegExp][] = [
    ["freed.pdf", withCrossReferenceEntry(cut, stream, "0000000000 00001 f\r\n"), new RegExp(`: object ${stream} freed after the seal$`, "m")],
    [
      "pointed-back.pdf",
      withCrossReferenceEntry(cut, stream, `${String(catalogAt).padStart(10, "0")} 00000 n\r\n`),
      new RegExp(`: object ${stream} pointed at bytes before the seal$`, "m"),
    ],
  ];
  for (const [name, forged, refusal] of cases) {
    const result = judgedUnderTestRoots(name, await withDocumentTimestamp(forged, sealedTestAuthority));
    assert.equal(result.status, 1, result.stdout);
    assert.match(result.stdout, refusal);
  }
  const visible = judgedUnderTestRoots("visible-widget.pdf", await withDocumentTimestamp(cut, sealedTestAuthority, "Stamp", "[40 700 555 800]"));
  assert.match(
    visible.stdout,
    /^FAIL the updates after the seal write only what PAdES allows after it: signature widget object \d+ after the seal is visible$/m,
  );
});

test("a further document timestamp on a sealed report (a B-LTA renewal) is accepted", async () => {
  const renewed = await withDocumentTimestamp(sealedTest, sealedTestAuthority);
  const result = judgedUnderTestRoots("renewed.pdf", renewed);
  assert.equal(result.status, 0, result.stdout);
  assert.match(result.stdout, /^ok {3}3 signatures: one seal \(1\) and document timestamps after it$/m);
});

test("a PDF with a cross-reference stream is refused, not sealed into a broken file", async () => {
  const compact = spawnSync("qpdf", ["--object-streams=generate", written("plain.pdf", unsigned), join(dir, "xref-stream.pdf")]);
  assert.equal(compact.status, 0);
  await assert.rejects(sealPdf(new Uint8Array(readFileSync(join(dir, "xref-stream.pdf"))), sealContext("test")), PdfSyntaxError);
});

test("the fields PDF/A accepts: invisible widgets (zero rectangle) flagged Print and Locked, the form's SigFlags 3, no NeedAppearances", () => {
  const text = Buffer.from(sealedTest).toString("latin1");
  for (const name of ["Seal", "Document timestamp"])
    assert.match(text, new RegExp(`<</FT /Sig /T \\(${name}\\) /V \\d+ 0 R /Type /Annot /Subtype /Widget /Rect \\[0 0 0 0\\] /F 132 /P \\d+ 0 R>>`));
  assert.match(text, /\/SigFlags 3/);
  assert.doesNotMatch(text, /NeedAppearances/);
});

test("a signature larger than the room reserved for it is refused, never cut", async () => {
  const revision = readRevision(unsigned);
  const objects = [{ number: Number(revision.trailer.get("/Size")), body: `<</Type /Sig ${placeholders(100)}>>` }];
  await assert.rejects(
    signedUpdate(revision, objects, async () => new Uint8Array(101)),
    SignatureSpaceError,
  );
  const fits = await signedUpdate(revision, objects, async () => new Uint8Array(100).fill(0xab));
  assert.match(Buffer.from(fits).toString("latin1"), new RegExp(`/Contents <${"ab".repeat(100)}>`));
});

test("the PDF syntax read: nested dictionaries, strings with parentheses and escapes, hex strings, comments, references", () => {
  const source = "<</Title (Report \\(draft\\) (v1)) /Kids [3 0 R 4 0 R] /Lang(fr) % a comment\n/ID <ab12> /MarkInfo<</Marked true>> /Count 2>>rest";
  const { entries, end } = dictionaryEntries(source, 0);
  assert.deepEqual(
    [...entries],
    [
      ["/Title", "(Report \\(draft\\) (v1))"],
      ["/Kids", "[3 0 R 4 0 R]"],
      ["/Lang", "(fr)"],
      ["/ID", "<ab12>"],
      ["/MarkInfo", "<</Marked true>>"],
      ["/Count", "2"],
    ],
  );
  assert.equal(source.slice(end), "rest");
  assert.deepEqual(arrayElements("[3 0 R 4 0 R /Name 5]"), ["3 0 R", "4 0 R", "/Name", "5"]);
  assert.equal(referencedObject("12 0 R"), 12);
  assert.equal(referencedObject("12"), null);
  assert.throws(() => dictionaryEntries("<</Title (unterminated>>", 0), PdfSyntaxError);
});
