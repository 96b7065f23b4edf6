import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sealPdf } from "../../sealer/src/pdf-seal/index.ts";
import { ensureLocalPki, LOCAL_PROOF_SEALS } from "../../sealer/src/pki/ensure-local-pki.ts";
import { crlSource } from "../../sealer/src/revocation/crl-source.ts";
import { sealIdentity } from "../../sealer/src/seal/seal-identity.ts";
import { simulatedAuthority } from "../../sealer/src/tsa/simulated-authority.ts";
import { request } from "./support/http.ts";
import { FORGED_TEXT, withDocumentTimestamp, withOverlay, withoutLastRevision } from "./support/pdf-forgeries.ts";
import { pdfsig, signatureReport, validatePdf } from "./support/pdf-judges.ts";
import { downloadedReport, get } from "./support/report-download.ts";
import { publishedRoots, type SealedPackage, sealedPackage } from "./support/sealed-package.ts";
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

let stack: Stack;
let live: SealedPackage;
/** Sealed after `live` with the same bytes: each of its files carries `sealed_before`. */
let again: SealedPackage;
let test: SealedPackage;
const reports: Record<"live" | "again" | "test", Buffer> = { live: Buffer.alloc(0), again: Buffer.alloc(0), test: Buffer.alloc(0) };
/** The published roots of each mode, written as PEM files for the PDFBox judge. */
const roots = { live: { seal: "", tsa: "" }, test: { seal: "", tsa: "" } };

beforeAll(async () => {
  stack = await startStack({ stateDir });
  // One after the other: seals at once on a loaded 2-core machine have outlasted sealedPackage's wait.
  live = await sealedPackage(stack, "live");
  test = await sealedPackage(stack, "test");
  again = await sealedPackage(stack, "live");
  for (const [name, sealed] of [
    ["live", live],
    ["again", again],
    ["test", test],
  ] as const)
    reports[name] = await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}/report.pdf`);
  for (const mode of ["live", "test"] as const) {
    const { seal, tsa } = await publishedRoots(stack, mode);
    roots[mode] = { seal: written(`${mode}-seal-root.pem`, seal.pem), tsa: written(`${mode}-tsa-root.pem`, tsa.pem) };
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

/** The PDFBox judge's refusal of an update after the seal that writes what PAdES does not allow there (docs/adr/0057). */
const REFUSED_UPDATE = /^FAIL the updates after the seal write only what PAdES allows after it: /m;

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
    expect(validated.stdout).toMatch(REFUSED_UPDATE);
    expect(validated.status).toBe(1);
    const report = pdfsig(path).stdout;
    expect(signatureReport(report, 1)).toMatch(/Signature is Valid\./);
    expect(signatureReport(report, 2)).toMatch(/Not total document signed/);
  });

  it("the overlay then stamped again by the same authority: the third signature is a valid document timestamp, the update it covers is refused", async () => {
    const path = written("overlay-restamped.pdf", await withDocumentTimestamp(withOverlay(reports.live), liveAuthority()));
    expect(pdfText(path)).toContain(FORGED_TEXT);
    const report = pdfsig(path).stdout;
    expect(signatureReport(report, 3)).toMatch(/Total document signed/);
    const validated = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(validated.stdout).toMatch(REFUSED_UPDATE);
    expect(validated.stdout).toMatch(/^ok {3}3 signatures: one seal \(1\) and document timestamps after it$/m);
    expect(validated.status).toBe(1);
  });

  it("forger finding R2: the document timestamp cut off, an overlay appended, stamped again by the same authority: refused", async () => {
    const path = written("shadow.pdf", await withDocumentTimestamp(withOverlay(withoutLastRevision(reports.live)), liveAuthority()));
    expect(pdfText(path)).toContain(FORGED_TEXT);
    // pdfsig shows what it shows for the genuine report: it does not judge what the updates after the seal wrote.
    const report = pdfsig(path).stdout;
    expect(signatureReport(report, 1)).toMatch(/Signature is Valid\./);
    expect(signatureReport(report, 2)).toMatch(/Total document signed/);
    const validated = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(validated.stdout).toMatch(REFUSED_UPDATE);
    expect(validated.stdout.replace(REFUSED_UPDATE, "")).not.toMatch(/^FAIL/m);
    expect(validated.status).toBe(1);
  });

  it("the document timestamp cut off and an overlay appended, not stamped again: the seal is last and short of the document, the update refused", () => {
    const path = written("shadow-unstamped.pdf", withOverlay(withoutLastRevision(reports.live)));
    expect(pdfText(path)).toContain(FORGED_TEXT);
    const validated = validatePdf(path, roots.live.seal, roots.live.tsa);
    expect(validated.stdout).toMatch(/^FAIL 1 signatures: one seal \(1\) and document timestamps after it$/m);
    expect(validated.stdout).toMatch(/^FAIL the last signature \(ETSI\.CAdES\.detached\) covers the whole document$/m);
    expect(validated.stdout).toMatch(REFUSED_UPDATE);
    expect(validated.status).toBe(1);
  });

  it("the genuine report certifies itself (DocMDP P=2), and a further document timestamp on it, a B-LTA renewal, is accepted", async () => {
    const genuine = validatePdf(written("genuine-certified.pdf", reports.live), roots.live.seal, roots.live.tsa);
    expect(genuine.stdout).toMatch(/^ok {3}the seal certifies the document: catalog \/Perms \/DocMDP, \/Reference DocMDP \/P 2$/m);
    const renewed = validatePdf(written("renewed.pdf", await withDocumentTimestamp(reports.live, liveAuthority())), roots.live.seal, roots.live.tsa);
    expect(renewed.stdout).not.toMatch(/FAIL/);
    expect(renewed.status).toBe(0);
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
