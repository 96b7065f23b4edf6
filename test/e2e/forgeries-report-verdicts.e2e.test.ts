import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "./support/http.ts";
import { failingSteps, forgedCopy, pinnedProofVerify } from "./support/package-verdicts.ts";
import { packageOnceReady, publishedRoots, type SealedPackage, sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Issue 25's forger findings R1, O4 and R3 on live proofs made through the API (docs/adr/0056): a package whose
 * report.pdf is another live proof's genuine report or junk, or which holds an added Report-final.pdf, is
 * refused by `proof-verify` pinned to the published roots (the check named) and by VERIFY.md's steps named, run
 * as written; the public JSON names each report's SHA-256, and POST /v1/public/verify answers a report's bytes
 * with the proof whose sealed report it is. (The overlay re-stamped by the same authority, R2, and a report
 * sealed by another identity: test/api/report-verdicts.test.ts; the PDF validators: forgeries-report.e2e.)
 */

const stateDir = mkdtempSync(join(tmpdir(), "report-verdicts-stack-"));
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let stack: Stack;
let genuine: SealedPackage;
let other: SealedPackage;
let livePins: string[];

beforeAll(async () => {
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5" } });
  // One after the other: two seals at once on a loaded 2-core machine have outlasted sealedPackage's wait. Each
  // package downloaded again once its report is made (the public JSON names it).
  const sealed = async () => packageOnceReady(stack, await sealedPackage(stack, "live"), { evidenceRecord: false, timeoutMs: 120_000 });
  genuine = await sealed();
  other = await sealed();
  livePins = (await publishedRoots(stack, "live")).pins;
}, 400_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const proofVerify = (folder: string) => pinnedProofVerify(folder, livePins);
const forge = (change: (dir: string) => void) => forgedCopy(genuine.folder, change);

// First, while the connection to the stack is fresh: the VERIFY.md runs below block the event loop for
// minutes, after which the stack has closed the idle keep-alive connection fetch would reuse.
describe("the public JSON names the report and verify finds it (R3)", () => {
  it("publishes the packaged report's SHA-256 and its URL, checked in the verification", async () => {
    const { body } = await request(`${stack.baseUrl}/v1/public/proofs/${genuine.proof.id}`);
    const bytes = readFileSync(join(genuine.folder, "report.pdf"));
    expect(body.report).toEqual({ sha256: sha256(bytes), url: `${stack.baseUrl}/v1/public/proofs/${genuine.proof.id}/report.pdf` });
    expect(body.verification.checks).toContainEqual(expect.objectContaining({ name: "report", result: "pass" }));
  });

  it("answers a report's bytes with the proof whose sealed report it is, and junk with nothing", async () => {
    const ask = async (bytes: Buffer) =>
      (await (await fetch(`${stack.baseUrl}/v1/public/verify`, { method: "POST", body: bytes, headers: { "Content-Type": "application/pdf" } })).json()) as {
        data: { proof_id: string; file_id: string | null; match: string; verification: { status: string } }[];
      };
    expect((await ask(readFileSync(join(genuine.folder, "report.pdf")))).data).toEqual([
      expect.objectContaining({ proof_id: genuine.proof.id, file_id: null, match: "report", verification: expect.objectContaining({ status: "valid" }) }),
    ]);
    expect((await ask(readFileSync(join(other.folder, "report.pdf")))).data).toEqual([expect.objectContaining({ proof_id: other.proof.id, match: "report" })]);
    expect((await ask(Buffer.from("%PDF-1.7 forged"))).data).toEqual([]);
  });
});

describe("the verdicts check the report (R1) and the package's contents (O4)", () => {
  it("the genuine package: report checked and passing, VERIFIED pinned, every VERIFY.md step passes", () => {
    const { status, failed, check } = proofVerify(genuine.folder);
    expect(failed).toEqual([]);
    expect(check("report")?.result).toBe("pass");
    expect(check("package_contents")?.result).toBe("pass");
    expect(status).toBe(0);
    expect(failingSteps(forge(() => {}))).toEqual([]);
  });

  it("report.pdf replaced by another live proof's genuine report: report fails, VERIFY.md steps 8 and 9", () => {
    const folder = forge((dir) => cpSync(join(other.folder, "report.pdf"), join(dir, "report.pdf")));
    const { status, failed, check } = proofVerify(folder);
    expect(failed).toEqual(["report"]);
    expect(check("report")?.detail).toContain("the manifest.json it carries is not this package's manifest.json");
    expect(status).toBe(1);
    expect(failingSteps(folder)).toEqual([8, 9]);
  });

  it("report.pdf replaced by junk bytes: report fails, VERIFY.md steps 8 and 9", () => {
    const folder = forge((dir) => writeFileSync(join(dir, "report.pdf"), "%PDF-1.7 forged"));
    const { status, failed } = proofVerify(folder);
    expect(failed).toEqual(["report"]);
    expect(status).toBe(1);
    expect(failingSteps(folder)).toEqual([8, 9]);
  });

  it("a Report-final.pdf added beside the genuine report: package_contents fails naming it, VERIFY.md step 8", () => {
    const folder = forge((dir) => cpSync(join(other.folder, "report.pdf"), join(dir, "Report-final.pdf")));
    const { status, failed, check } = proofVerify(folder);
    expect(failed).toEqual(["package_contents"]);
    expect(check("package_contents")?.detail).toContain("Report-final.pdf");
    expect(status).toBe(1);
    expect(failingSteps(folder)).toEqual([8]);
  });
});
