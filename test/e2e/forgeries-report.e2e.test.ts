import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { placeholders, signedUpdate } from "../../sealer/src/pdf-seal/byte-range.ts";
import { sealPdf } from "../../sealer/src/pdf-seal/index.ts";
import { appendUpdate, streamBody } from "../../sealer/src/pdf-seal/incremental-update.ts";
import { firstPageNumber, objectText, readRevision, resolvedDictionary } from "../../sealer/src/pdf-seal/pdf-revision.ts";
import { dictionaryEntries, dictionaryText, referencedObject } from "../../sealer/src/pdf-seal/pdf-syntax.ts";
import { signatureFieldObjects } from "../../sealer/src/pdf-seal/signature-field.ts";
import { ensureLocalPki, LOCAL_PROOF_SEALS } from "../../sealer/src/pki/ensure-local-pki.ts";
import { crlSource } from "../../sealer/src/revocation/crl-source.ts";
import { sealIdentity } from "../../sealer/src/seal/seal-identity.ts";
import { obtainTimestampOfDigest } from "../../sealer/src/tsa/obtain-timestamp.ts";
import { simulatedAuthority } from "../../sealer/src/tsa/simulated-authority.ts";
import { request } from "./support/http.ts";
import { pdfsig, signatureReport, validatePdf } from "./support/pdf-judges.ts";
import { downloadedReport, get } from "./support/report-download.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Issue 25's report as a forger attacks it, on reports made through the API of `npm run dev`: visible content
 * changed in an incremental update after the seal, a document timestamp added after it from the same authority
 * (any of its customers gets one over any hash), the report sealed again by a forger's CA named like the
 * service's, a test report shown under the live roots. Each is refused by the PDFBox judge (docs/adr/0048) with
 * the published roots, and pdfsig shows what it can. The public routes give nothing of another proof: not the
 * earlier proof a `sealed_before` file was sealed in, not a file or report through another proof's id.
 */

const stateDir = mkdtempSync(join(tmpdir(), "forgeries-report-stack-"));
const work = mkdtempSync(join(tmpdir(), "forgeries-report-"));
const FORGED_TEXT = "NOT VERIFIED: forged overlay";

type Sealed = Awaited<ReturnType<typeof sealedPackage>>;
let stack: Stack;
let live: Sealed;
/** Sealed after `live` with the same bytes: each of its files carries `sealed_before`. */
let again: Sealed;
let test: Sealed;
const reports: Record<"live" | "again" | "test", Buffer> = { live: Buffer.alloc(0), again: Buffer.alloc(0), test: Buffer.alloc(0) };
/** The published roots of each mode, written as PEM files for the PDFBox judge. */
const roots = { live: { seal: "", tsa: "" }, test: { seal: "", tsa: "" } };

beforeAll(async () => {
  stack = await startStack({ stateDir });
  // One after the other: seals at once on a loaded 2-core machine have outlasted sealedPackage's wait.
  const sealed = async (mode: "live" | "test") =>
    sealedPackage(stack, mode).catch((error: Error) => {
      throw new Error(`${error.message}\n${stack.output().slice(-4000)}`);
    });
  live = await sealed("live");
  test = await sealed("test");
  again = await sealed("live");
  for (const [name, sealed] of [
    ["live", live],
    ["again", again],
    ["test", test],
  ] as const)
    reports[name] = await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}/report.pdf`);
  const anchors = (await request(`${stack.baseUrl}/v1/public/trust-anchors`)).body.data as { kind: string; mode: string; status: string; pem: string }[];
  for (const mode of ["live", "test"] as const) {
    const pem = (kind: string) => anchors.find((anchor) => anchor.kind === kind && anchor.mode === mode && anchor.status === "current")!.pem;
    roots[mode] = { seal: written(`${mode}-seal-root.pem`, pem("c2pa")), tsa: written(`${mode}-tsa-root.pem`, pem("timestamp_authority")) };
  }
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

function written(name: string, bytes: Uint8Array | string): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

/** The stack's live authority, in process: the authority any of its customers gets tokens from. */
const liveAuthority = () => simulatedAuthority(join(stateDir, "local", "pki"), "tsa-live", "Local Timestamp Authority");

/** `pdf` with an incremental update drawing a white box and FORGED_TEXT over the first page, through a content stream and a font of its own. */
function withOverlay(pdf: Uint8Array): Uint8Array {
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
  const draw = `q 1 1 1 rg 0 560 595 282 re f Q BT /Forged 28 Tf 40 760 Td (${FORGED_TEXT}) Tj ET`;
  return appendUpdate(revision, [
    { number: font, body: "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>" },
    { number: stream, body: streamBody(new Uint8Array(Buffer.from(draw, "latin1"))) },
    { number: page, body: dictionaryText(entries) },
  ]);
}

/** `pdf` with a document timestamp appended, from the stack's live authority over the whole file. */
async function withDocumentTimestamp(pdf: Uint8Array): Promise<Uint8Array> {
  const revision = readRevision(pdf);
  const value = `<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${placeholders(12_000)}>>`;
  return signedUpdate(
    revision,
    signatureFieldObjects(revision, "Document timestamp 2", value),
    async (digest) => (await obtainTimestampOfDigest(liveAuthority(), "SHA-256", digest)).token,
  );
}

/** The report as it was before its first signature: the bytes up to its first %%EOF. */
function unsignedRevision(pdf: Buffer): Uint8Array {
  const end = pdf.indexOf("%%EOF") + "%%EOF".length;
  return new Uint8Array(pdf.subarray(0, pdf[end] === 0x0a ? end + 1 : end));
}

const pdfText = (path: string) => spawnSync("pdftotext", [path, "-"], { encoding: "utf8" }).stdout;

describe("a sealed report changed or sealed again by a forger, refused by the PDFBox judge (issue 25)", () => {
  it("the genuine live report: every check of the PDFBox judge passes under the published live roots", () => {
    const validated = validatePdf(written("genuine.pdf", reports.live), roots.live.seal, roots.live.tsa);
    expect(validated.stdout).not.toMatch(/FAIL/);
    expect(validated.status).toBe(0);
  });

  it("an overlay appended after the document timestamp: the last signature no longer covers the whole document", () => {
    const path = written("overlay.pdf", withOverlay(reports.live));
    expect(pdfText(path)).toContain(FORGED_TEXT);
    const validated = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(validated.stdout).toMatch(/^FAIL the last signature \(ETSI\.RFC3161\) covers the whole document$/m);
    expect(validated.status).toBe(1);
    const report = pdfsig(path).stdout;
    expect(signatureReport(report, 1)).toMatch(/Signature is Valid\./);
    expect(signatureReport(report, 2)).toMatch(/Not total document signed/);
  });

  it("the overlay then stamped again by the same authority: three signatures, refused", async () => {
    const path = written("overlay-restamped.pdf", await withDocumentTimestamp(withOverlay(reports.live)));
    expect(pdfText(path)).toContain(FORGED_TEXT);
    const report = pdfsig(path).stdout;
    expect(signatureReport(report, 3)).toMatch(/Total document signed/);
    const validated = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(validated.stdout).toMatch(/^FAIL 3 signatures/m);
    expect(validated.status).toBe(1);
  });

  it("sealed again, with the overlay, by a forger's CA named like the service's and stamped by the genuine authority: the seal does not chain to the published root", async () => {
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "report-forger-pki-")), "pki"));
    const pem = (name: string) => readFileSync(join(forger, name), "utf8");
    const seal = LOCAL_PROOF_SEALS.live.name;
    const resealed = await sealPdf(withOverlay(unsignedRevision(reports.live)), {
      seal: sealIdentity(pem(`${seal}.pk8`), [new Uint8Array(new X509Certificate(pem(`${seal}.pem`)).raw)]),
      trustAnchorPem: pem("c2pa-root.pem"),
      authority: liveAuthority(),
      crls: crlSource({ localPkiDir: forger }),
    });
    const path = written("resealed.pdf", resealed);
    expect(pdfText(path)).toContain(FORGED_TEXT);
    const report = pdfsig(path).stdout;
    // The same names as the genuine seal's; pdfsig trusts neither (docs/adr/0048: the EKU).
    expect(signatureReport(report, 1)).toMatch(/Signer Certificate Common Name: Local Proof Seal\n/);
    expect(signatureReport(report, 1)).toMatch(/Signature is Valid\./);
    expect(report).not.toMatch(/Certificate is Trusted/);
    const validated = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(validated.stdout).toMatch(/^FAIL signature ETSI\.CAdES\.detached: seal certificate chains to .*unable to find valid certification path/m);
    expect(validated.status).toBe(1);
  }, 120_000);

  it("a test report under the live roots: refused; under the test roots: valid, its signer named TEST ONLY", () => {
    const path = written("test.pdf", reports.test);
    const underLive = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(underLive.stdout).toMatch(/^FAIL signature ETSI\.CAdES\.detached: seal certificate chains to/m);
    expect(underLive.status).toBe(1);
    expect(validatePdf(path, roots.test.seal, roots.test.tsa).status).toBe(0);
    expect(signatureReport(pdfsig(path).stdout, 1)).toMatch(/Common Name: .*TEST ONLY/);
  });
});

describe("the public routes give nothing of another proof", () => {
  it("a proof whose files were sealed before: its report (text and attachments), public JSON and page never name the earlier proof", async () => {
    const proof = (await request(`${stack.baseUrl}/v1/public/proofs/${again.proof.id}`)).body;
    expect(proof.files.every((file: { signals: { code: string }[] }) => file.signals.some((signal) => signal.code === "sealed_before"))).toBe(true);
    const path = written("again.pdf", reports.again);
    const attachments = ["manifest.json", "manifest.p7s", "proof.tsr"].map(
      (name) => spawnSync("qpdf", [`--show-attachment=${name}`, path], { encoding: "latin1" }).stdout,
    );
    const page = await (await get(`${stack.baseUrl}/p/${again.proof.id}?lang=en`)).text();
    for (const text of [pdfText(path), ...attachments, JSON.stringify(proof), page]) {
      expect(text).not.toContain(live.proof.id);
    }
    expect(attachments[0]).toBe(readFileSync(join(again.folder, "manifest.json"), "latin1"));
  });

  it("another proof's file through this proof's id, and hostile report paths: 4xx problems, never a 5xx or another proof's bytes", async () => {
    const otherFile = (await request(`${stack.baseUrl}/v1/public/proofs/${again.proof.id}`)).body.files[0].id as string;
    const own = live.proof.id;
    const cases: [string, string][] = [
      [`/v1/public/proofs/${own}/files/${otherFile}`, "capture_file_not_found"],
      [`/v1/public/proofs/${own}/files/${otherFile}/thumbnail`, "capture_file_not_found"],
      [`/v1/public/proofs/${test.proof.id}/files/${otherFile}`, "capture_file_not_found"],
      [`/v1/public/proofs/${own}%2F..%2F${again.proof.id}/report.pdf`, "proof_not_found"],
      [`/v1/public/proofs/${own}%00/report.pdf`, "proof_not_found"],
      [`/v1/public/proofs/%ff%fe/report.pdf`, "proof_not_found"],
      [`/v1/public/proofs/prf_%2e%2e/pair-report.pdf`, "proof_not_found"],
      [`/v1/public/proofs/${own}/pair-report.pdf`, "report_not_ready"],
      [`/v1/public/proofs/${own}/report.pdf/`, "not_found"],
      [`/v1/public/proofs/${own}/report.pdf;.html`, "not_found"],
    ];
    for (const [path, code] of cases) {
      const response = await get(`${stack.baseUrl}${path}`);
      expect(response.status, path).toBeLessThan(500);
      expect(((await response.json()) as { code: string }).code, path).toBe(code);
    }
  });
});
