import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathWithProofVerify } from "./proof-verify-on-path.ts";

/** Two of the verdicts a forged package meets: `proof-verify` pinned to the published roots, and VERIFY.md run as written. */

const root = resolve(import.meta.dirname, "../../..");
const PATH = pathWithProofVerify();

type Check = { name: string; result: string; detail: string };
export type VerifierReport = { verdict: string; checks: Check[] };

/** `proof-verify <package> --json` (a ZIP or its unzipped folder) as a stranger runs it from a clone (its own bin), pinned to `pins`. */
export function pinnedProofVerify(pkg: string, pins: string[]) {
  const result = spawnSync(process.execPath, [join(root, "verifier/bin/proof-verify.ts"), pkg, ...pins, "--json"], { encoding: "utf8", cwd: tmpdir() });
  const report = JSON.parse(result.stdout) as VerifierReport;
  const check = (name: string) => report.checks.find((one) => one.name === name);
  return { status: result.status, report, check, failed: report.checks.filter((one) => one.result === "fail").map((one) => one.name) };
}

/** The numbers of the English VERIFY.md steps whose commands fail, each block run as printed in `folder` (c2patool lines left out: optional). */
export function failingSteps(folder: string): number[] {
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

/** A copy of a genuine package's unzipped folder changed by `change`. */
export function forgedCopy(genuineFolder: string, change: (dir: string) => void): string {
  const folder = join(mkdtempSync(join(tmpdir(), "forged-")), "package");
  cpSync(genuineFolder, folder, { recursive: true });
  change(folder);
  return folder;
}
