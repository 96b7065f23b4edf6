import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { pdfsig, pdfsigTrusting, qpdfCheck, signatureReport, validatePdf } from "./support/pdf-judges.ts";
import { downloadedReport, get } from "./support/report-download.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** The roots a reader pins, as GET /v1/public/trust-anchors publishes them, written where the judges read them. */
async function publishedRoots(proofId: string, dir: string) {
  const anchors = (await request(`${stack.baseUrl}/v1/public/trust-anchors`)).body.data as { kind: string; sha256: string; pem: string }[];
  const named = (await request(`${stack.baseUrl}/v1/public/proofs/${proofId}`)).body.trust_anchors;
  const written = (name: string, sha256: string) => {
    const path = join(dir, name);
    writeFileSync(path, anchors.find((root) => root.sha256 === sha256)!.pem);
    return path;
  };
  return { seal: written("seal-root.pem", named.c2pa_root_sha256), tsa: written("tsa-root.pem", named.timestamp_authority_root_sha256) };
}

/**
 * The judges on one report: pdfsig finds the seal (by the mode's identity) valid, its certificate
 * trusted under the published service root, and the last signature covering the whole document, PDFBox with Bouncy Castle validates the seal and the document
 * timestamp to the published roots, qpdf finds no error.
 */
function judge(path: string, roots: { seal: string; tsa: string }, mode: "test" | "live") {
  const report = pdfsig(path).stdout;
  const seal = signatureReport(report, 1);
  expect(seal).toMatch(/Signature Type: ETSI\.CAdES\.detached/);
  expect(seal).toMatch(/Signature Validation: Signature is Valid\./);
  if (mode === "test") expect(seal).toMatch(/Signer Certificate Common Name: .*TEST ONLY/);
  else expect(seal).not.toMatch(/TEST ONLY/);
  expect(signatureReport(report, 2)).toMatch(/Total document signed/);
  expect(signatureReport(report, 3)).toBe("");
  // Given the published service root, NSS trusts the seal's certificate (its EKU lists emailProtection, ADR 0054).
  expect(signatureReport(pdfsigTrusting(path, roots.seal).stdout, 1)).toMatch(/Certificate Validation: Certificate is Trusted\./);
  const validated = validatePdf(path, roots.seal, roots.tsa);
  expect(validated.stdout).not.toMatch(/FAIL/);
  expect(validated.status).toBe(0);
  expect(qpdfCheck(path).status).toBe(0);
}

describe("the sealed PDF reports of proofs made through the API, judged by pdfsig, PDFBox and qpdf", () => {
  /** The test proof sealed first: the byte-change test alters its report, the pair compares to it. */
  let testProof: { proof: Awaited<ReturnType<typeof sealedPackage>>["proof"]; dir: string } | undefined;

  for (const mode of ["test", "live"] as const) {
    it(`${mode} proof: report.pdf from its route and from the package, the same bytes, valid to each judge`, async () => {
      const { proof, folder } = await sealedPackage(stack, mode);
      const dir = join(folder, "..");
      if (mode === "test") testProof = { proof, dir };
      const pdf = await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${proof.id}/report.pdf`);
      const path = join(dir, "report.pdf");
      writeFileSync(path, pdf);
      judge(path, await publishedRoots(proof.id, dir), mode);
      // The package downloaded at sealing came before the report; once made, the package carries it.
      const zip = join(dir, "with-report.zip");
      writeFileSync(zip, Buffer.from(await (await get(proof.package_url)).arrayBuffer()));
      expect(Buffer.compare(execFileSync("unzip", ["-p", zip, "report.pdf"], { maxBuffer: 64 << 20 }), pdf)).toBe(0);
    }, 300_000);
  }

  it("a byte changed in a report: pdfsig reports the seal invalid", async () => {
    const { dir } = testProof!;
    const pdf = readFileSync(join(dir, "report.pdf"));
    const at = pdf.indexOf("/MediaBox");
    pdf[at + 1] = "m".charCodeAt(0);
    const path = join(dir, "report-altered.pdf");
    writeFileSync(path, pdf);
    expect(signatureReport(pdfsig(path).stdout, 1)).toMatch(/Signature Validation: Digest Mismatch\./);
  });

  it("a before/after pair: pair-report.pdf, the same from either proof, valid to each judge", async () => {
    const { proof: before, dir } = testProof!;
    const { completed } = await captureOverHttp(
      stack,
      stack.testKey,
      { external_reference: before.external_reference, party: "provider", stage: "checkout", compare_to: before.id },
      [
        { file: "photo.png", type: "image/png" },
        { file: "photo.jpg", type: "image/jpeg" },
        { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
      ],
    );
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    const after = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 90_000);
    expect(after.status).toBe("sealed");
    const fromAfter = await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${after.id}/pair-report.pdf`);
    const fromBefore = await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${before.id}/pair-report.pdf`);
    expect(Buffer.compare(fromAfter, fromBefore)).toBe(0);
    const path = join(dir, "pair-report.pdf");
    writeFileSync(path, fromAfter);
    judge(path, await publishedRoots(after.id, dir), "test");
  }, 300_000);
});
