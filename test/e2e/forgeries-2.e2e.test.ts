import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { request } from "./support/http.ts";
import { pathWithProofVerify } from "./support/proof-verify-on-path.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Issue 24's forgeries that recombine the pieces of two genuine live proofs rather than relabel one (those are
 * in forgeries.e2e.test.ts): another proof's manifest.p7s or evidence record, the revocation data the seal
 * covers (docs/adr/0049) added to, swapped or reordered, and manifest.json rewritten so that a JSON parser
 * reads other values (a duplicate key, a unicode escape, trailing data). Each is refused by `proof-verify`
 * pinned to the published roots (the checks named) and by the VERIFY.md steps named, run as written.
 */

const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "forgeries-2-stack-"));
const PATH = pathWithProofVerify();

type Sealed = Awaited<ReturnType<typeof sealedPackage>>;
type Report = { verdict: string; checks: { name: string; result: string; detail: string }[] };
let stack: Stack;
let genuine: Sealed;
let other: Sealed;
let livePins: string[];

/**
 * A sealed live proof's package downloaded again once its evidence record exists (the sweep, within seconds here)
 * and its report is made (VERIFY.md's step 9 then checks it).
 */
async function withEvidenceRecord(sealed: Sealed): Promise<Sealed> {
  const deadline = Date.now() + 90_000;
  const ready = (body: { evidence_record?: { archive_timestamps?: number }; report?: unknown }) => !!body.evidence_record?.archive_timestamps && !!body.report;
  while (!ready((await request(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}`)).body)) {
    if (Date.now() > deadline) throw new Error(`no evidence record for ${sealed.proof.id}:\n${stack.output().slice(-3000)}`);
    await new Promise((done) => setTimeout(done, 500));
  }
  const folder = join(mkdtempSync(join(tmpdir(), "forgeries-2-package-")), "unzipped");
  const zip = `${folder}.zip`;
  writeFileSync(zip, Buffer.from(await (await fetch(sealed.proof.package_url)).arrayBuffer()));
  execFileSync("unzip", ["-q", zip, "-d", folder]);
  return { ...sealed, zip, folder };
}

beforeAll(async () => {
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5", EVIDENCE_FIRST_STAMP_WITHIN_MINUTES: "0" } });
  // One after the other: two seals at once on a loaded 2-core machine have outlasted sealedPackage's wait.
  const sealed = async () =>
    sealedPackage(stack, "live").catch((error: Error) => {
      throw new Error(`${error.message}\n${stack.output().slice(-4000)}`);
    });
  genuine = await sealed();
  other = await sealed();
  [genuine, other] = await Promise.all([withEvidenceRecord(genuine), withEvidenceRecord(other)]);
  const anchors: { data: { kind: string; mode: string; status: string; sha256: string }[] } = (await request(`${stack.baseUrl}/v1/public/trust-anchors`)).body;
  const pin = (kind: string) => anchors.data.find((anchor) => anchor.kind === kind && anchor.mode === "live" && anchor.status === "current")!.sha256;
  livePins = ["--tsa-root-sha256", pin("timestamp_authority"), "--service-root-sha256", pin("c2pa")];
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** `proof-verify <folder> --json` pinned to the published live roots. */
function proofVerify(folder: string) {
  const result = spawnSync(process.execPath, [join(root, "verifier/bin/proof-verify.ts"), folder, ...livePins, "--json"], { encoding: "utf8", cwd: tmpdir() });
  const report = JSON.parse(result.stdout) as Report;
  return { status: result.status, report, failed: report.checks.filter((check) => check.result === "fail").map((check) => check.name) };
}
const detail = (report: Report, name: string) => report.checks.find((check) => check.name === name)?.detail ?? "";

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
  const folder = join(mkdtempSync(join(tmpdir(), "forged-2-")), "package");
  cpSync(genuine.folder, folder, { recursive: true });
  change(folder);
  return folder;
}

const manifestText = (dir: string) => readFileSync(join(dir, "manifest.json"), "utf8");
const revocationIndex = (dir: string) => join(dir, "revocation", "index.json");

describe("recombined from two genuine live proofs, refused by proof-verify and VERIFY.md", () => {
  it("the genuine package: VERIFIED pinned, every VERIFY.md step passes", () => {
    const { status, failed } = proofVerify(genuine.folder);
    expect(failed).toEqual([]);
    expect(status).toBe(0);
    expect(failingSteps(forge(() => {}))).toEqual([]);
  });

  it("manifest.p7s of another live proof: manifest_seal, VERIFY.md steps 2, 8 and 9 (the report carries the genuine seal)", () => {
    const folder = forge((dir) => cpSync(join(other.folder, "manifest.p7s"), join(dir, "manifest.p7s")));
    const { status, report, failed } = proofVerify(folder);
    expect(failed).toEqual(["manifest_seal"]);
    expect(detail(report, "manifest_seal")).toMatch(/not made over this manifest\.json/);
    expect(status).toBe(1);
    expect(failingSteps(folder)).toEqual([2, 8, 9]);
  });

  it("evidence-record.ers of another live proof: evidence_record, VERIFY.md step 8", () => {
    const folder = forge((dir) => cpSync(join(other.folder, "evidence-record.ers"), join(dir, "evidence-record.ers")));
    const { status, failed } = proofVerify(folder);
    expect(failed).toEqual(["evidence_record"]);
    expect(status).toBe(1);
    expect(failingSteps(folder)).toEqual([8]);
  });

  it("revocation/ added to (a CRL), its CRLs swapped, its index reordered or one space longer: revocation (sealed), VERIFY.md steps 7 and 8", () => {
    const forgeries = {
      added: (dir: string) => cpSync(join(dir, "revocation", "tsa-1.crl"), join(dir, "revocation", "extra.crl")),
      swapped: (dir: string) => {
        const crl = (name: string) => join(dir, "revocation", name);
        renameSync(crl("tsa-1.crl"), crl("swap.crl"));
        renameSync(crl("c2pa-1.crl"), crl("tsa-1.crl"));
        renameSync(crl("swap.crl"), crl("c2pa-1.crl"));
      },
      reordered: (dir: string) =>
        writeFileSync(revocationIndex(dir), JSON.stringify((JSON.parse(readFileSync(revocationIndex(dir), "utf8")) as unknown[]).reverse(), null, 2)),
      spaced: (dir: string) => writeFileSync(revocationIndex(dir), `${readFileSync(revocationIndex(dir), "utf8")} `),
    };
    for (const [name, change] of Object.entries(forgeries)) {
      const folder = forge(change);
      const { status, report, failed } = proofVerify(folder);
      expect(failed, name).toContain("revocation");
      expect(detail(report, "revocation"), name).toMatch(/revocation_sealed/);
      expect(status, name).toBe(1);
      expect(failingSteps(folder), name).toEqual([7, 8]);
    }
    expect(readdirSync(join(genuine.folder, "revocation"))).toContain("index.json");
  });

  it("manifest.json read otherwise by a JSON parser (a duplicate party, a unicode-escaped key, trailing data): refused by the bytes the seal covers, VERIFY.md steps 2, 3, 8 and 9", () => {
    const bySeal = ["timestamp_imprint", "manifest_seal"];
    const rewrites = [
      {
        name: "a duplicate key after the genuine one",
        rewrite: (text: string) => text.replace(/}\s*$/, ',"party":"recipient"}'),
        checks: bySeal,
        steps: [2, 3, 8, 9],
      },
      {
        name: "a unicode-escaped key",
        rewrite: (text: string) => text.replace('"party":"provider"', '"\\u0070arty":"recipient"'),
        checks: bySeal,
        steps: [2, 3, 8, 9],
      },
      // Not JSON any more: proof-verify stops at reading it; VERIFY.md's hash and file steps fail too.
      { name: "trailing data", rewrite: (text: string) => `${text}\n{"party":"recipient"}`, checks: ["package_complete"], steps: [2, 3, 4, 6, 8, 9] },
    ];
    expect(manifestText(genuine.folder)).toContain('"party":"provider"');
    for (const { name, rewrite, checks, steps } of rewrites) {
      const folder = forge((dir) => writeFileSync(join(dir, "manifest.json"), rewrite(manifestText(dir))));
      const { status, failed } = proofVerify(folder);
      expect(failed, name).toEqual(expect.arrayContaining(checks));
      expect(status, name).toBe(1);
      expect(failingSteps(folder), name).toEqual(steps);
    }
  });
});
