import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { request } from "./support/http.ts";
import { pathWithProofVerify } from "./support/proof-verify-on-path.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Issue 25's forger findings R1, O4 and R3 on live proofs made through the API (docs/adr/0056): a package whose
 * report.pdf is another live proof's genuine report or junk, or which holds an added Report-final.pdf, is
 * refused by `proof-verify` pinned to the published roots (the check named) and by VERIFY.md's steps named, run
 * as written; the public JSON names each report's SHA-256, and POST /v1/public/verify answers a report's bytes
 * with the proof whose sealed report it is. (The overlay re-stamped by the same authority, R2, and a report
 * sealed by another identity: test/api/report-verdicts.test.ts; the PDF validators: forgeries-report.e2e.)
 */

const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "report-verdicts-stack-"));
const PATH = pathWithProofVerify();
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

type Sealed = Awaited<ReturnType<typeof sealedPackage>>;
type Report = { verdict: string; checks: { name: string; result: string; detail: string }[] };
let stack: Stack;
let genuine: Sealed;
let other: Sealed;
let livePins: string[];

/** A sealed proof's package downloaded again once its report is made (the public JSON names it). */
async function withReport(sealed: Sealed): Promise<Sealed> {
  const deadline = Date.now() + 120_000;
  while (!(await request(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}`)).body.report) {
    if (Date.now() > deadline) throw new Error(`no report for ${sealed.proof.id}:\n${stack.output().slice(-3000)}`);
    await new Promise((done) => setTimeout(done, 500));
  }
  const folder = join(mkdtempSync(join(tmpdir(), "report-verdicts-package-")), "unzipped");
  const zip = `${folder}.zip`;
  writeFileSync(zip, Buffer.from(await (await fetch(sealed.proof.package_url)).arrayBuffer()));
  execFileSync("unzip", ["-q", zip, "-d", folder]);
  return { ...sealed, zip, folder };
}

beforeAll(async () => {
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5" } });
  // One after the other: two seals at once on a loaded 2-core machine have outlasted sealedPackage's wait.
  const sealed = async () =>
    sealedPackage(stack, "live").catch((error: Error) => {
      throw new Error(`${error.message}\n${stack.output().slice(-4000)}`);
    });
  genuine = await withReport(await sealed());
  other = await withReport(await sealed());
  const anchors: { data: { kind: string; mode: string; status: string; sha256: string }[] } = (await request(`${stack.baseUrl}/v1/public/trust-anchors`)).body;
  const pin = (kind: string) => anchors.data.find((anchor) => anchor.kind === kind && anchor.mode === "live" && anchor.status === "current")!.sha256;
  livePins = ["--tsa-root-sha256", pin("timestamp_authority"), "--service-root-sha256", pin("c2pa")];
}, 400_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** `proof-verify <folder> --json` pinned to the published live roots. */
function proofVerify(folder: string) {
  const result = spawnSync(process.execPath, [join(root, "verifier/bin/proof-verify.ts"), folder, ...livePins, "--json"], { encoding: "utf8", cwd: tmpdir() });
  const report = JSON.parse(result.stdout) as Report;
  const check = (name: string) => report.checks.find((one) => one.name === name);
  return { status: result.status, report, check, failed: report.checks.filter((one) => one.result === "fail").map((one) => one.name) };
}

/** The numbers of the English VERIFY.md steps whose commands fail, each block run as printed in `folder` (c2patool lines left out: optional). */
function failingSteps(folder: string): number[] {
  const english = readFileSync(join(folder, "VERIFY.md"), "utf8")
    .split(/^## /m)
    .find((part) => part.startsWith("English"))!;
  const failing: number[] = [];
  for (const section of english.split(/^(?=### \d+\. )/m).slice(1)) {
    const step = Number(/^### (\d+)\. /.exec(section)![1]);
    for (const [, block] of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
      const script = block!
        .split("\n")
        .filter((line) => !line.startsWith("c2patool "))
        .join("\n");
      const result = spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: folder, encoding: "utf8", env: { ...process.env, PATH } });
      if (result.status !== 0 && !failing.includes(step)) failing.push(step);
    }
  }
  return failing;
}

/** A copy of the genuine package's folder changed by `change`. */
function forge(change: (dir: string) => void): string {
  const folder = join(mkdtempSync(join(tmpdir(), "report-verdicts-forged-")), "package");
  cpSync(genuine.folder, folder, { recursive: true });
  change(folder);
  return folder;
}

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
