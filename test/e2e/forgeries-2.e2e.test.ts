import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failingSteps, forgedCopy, pinnedProofVerify } from "./support/package-verdicts.ts";
import { packageOnceReady, publishedRoots, type SealedPackage, sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Issue 24's forgeries that recombine the pieces of two genuine live proofs rather than relabel one (those are
 * in forgeries.e2e.test.ts): another proof's manifest.p7s or evidence record, the revocation data the seal
 * covers (docs/adr/0049) added to, swapped or reordered, and manifest.json rewritten so that a JSON parser
 * reads other values (a duplicate key, a unicode escape, trailing data). Each is refused by `proof-verify`
 * pinned to the published roots (the checks named) and by the VERIFY.md steps named, run as written.
 */

const stateDir = mkdtempSync(join(tmpdir(), "forgeries-2-stack-"));

let stack: Stack;
let genuine: SealedPackage;
let other: SealedPackage;
let livePins: string[];

beforeAll(async () => {
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5", EVIDENCE_FIRST_STAMP_WITHIN_MINUTES: "0" } });
  // One after the other: two seals at once on a loaded 2-core machine have outlasted sealedPackage's wait.
  genuine = await sealedPackage(stack, "live");
  other = await sealedPackage(stack, "live");
  // Downloaded again once each evidence record exists (the sweep, within seconds here) and each report is made
  // (VERIFY.md's step 9 then checks it).
  const ready = (sealed: SealedPackage) => packageOnceReady(stack, sealed, { evidenceRecord: true, timeoutMs: 90_000 });
  [genuine, other] = await Promise.all([ready(genuine), ready(other)]);
  livePins = (await publishedRoots(stack, "live")).pins;
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const proofVerify = (folder: string) => pinnedProofVerify(folder, livePins);
const forge = (change: (dir: string) => void) => forgedCopy(genuine.folder, change);
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
    const { status, check, failed } = proofVerify(folder);
    expect(failed).toEqual(["manifest_seal"]);
    expect(check("manifest_seal")?.detail).toMatch(/not made over this manifest\.json/);
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
      const { status, check, failed } = proofVerify(folder);
      expect(failed, name).toContain("revocation");
      expect(check("revocation")?.detail, name).toMatch(/revocation_sealed/);
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
