import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureLocalPki, localCrl } from "../../sealer/src/pki/ensure-local-pki.ts";
import { startStack, type Stack } from "./support/stack.ts";
import { sealedPackage } from "./support/sealed-package.ts";

const root = resolve(import.meta.dirname, "../..");
/** The stack's own folder, so that its local PKI (the CAs that issued the package's certificates) can be reached. */
const stateDir = mkdtempSync(join(tmpdir(), "proof-verify-stack-"));
let stack: Stack;
let genuine: Awaited<ReturnType<typeof sealedPackage>>;
let other: Awaited<ReturnType<typeof sealedPackage>>;
beforeAll(async () => {
  stack = await startStack({ stateDir });
  genuine = await sealedPackage(stack);
  other = await sealedPackage(stack);
}, 240_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** The verifier exactly as a stranger runs it from a clone: its own bin, no Worker and no sealer code. */
function proofVerify(...args: string[]) {
  const result = spawnSync(process.execPath, [join(root, "verifier/bin/proof-verify.ts"), ...args], { encoding: "utf8", cwd: tmpdir() });
  return { status: result.status, stdout: result.stdout, report: args.includes("--json") ? JSON.parse(result.stdout) : null };
}
const failed = (report: { checks: { name: string; ok: boolean }[] }) => report.checks.filter((check) => !check.ok).map((check) => check.name);

/** A copy of the genuine package's folder, changed by `change`, zipped again. */
function tampered(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "tampered-"));
  const folder = join(dir, "package");
  cpSync(genuine.folder, folder, { recursive: true });
  change(folder);
  const zip = join(dir, "package.zip");
  execFileSync("zip", ["-qr", zip, "manifest.json", "proof.tsr", "chain.pem", "c2pa-trust-anchor.pem", "revocation", "files", "VERIFY.md"], { cwd: folder });
  return zip;
}

const pinnedRoots = (zip: string) => {
  const report = proofVerify(zip, "--json").report;
  return ["--tsa-root-sha256", report.tsa_root_sha256, "--c2pa-root-sha256", report.c2pa_root_sha256];
};

describe("proof-verify, the offline verifier (verifier/)", () => {
  it("verifies a genuine package sealed on npm run dev, roots pinned: every check holds, exit 0, readable report", () => {
    const pins = pinnedRoots(genuine.zip);
    const { status, report } = proofVerify(genuine.zip, ...pins, "--json");
    expect(failed(report)).toEqual([]);
    expect(status).toBe(0);
    expect(report).toMatchObject({ ok: true, proof_id: genuine.proof.id, manifest_sha256: genuine.proof.manifest_sha256, pinned: { tsa: true, c2pa: true } });
    const names = report.checks.map((check: { name: string }) => check.name);
    expect(names).toEqual(
      expect.arrayContaining(["timestamp_imprint", "timestamp_signature", "timestamp_signer", "timestamp_chain", "tsa_root_pinned", "c2pa_root_pinned"]),
    );
    // Each file: its bytes, its C2PA manifest (c2pa-rs, Trusted with both roots), and the JPEG's original.
    expect(names.filter((name: string) => name.startsWith("file "))).toHaveLength(3);
    expect(names.filter((name: string) => name.startsWith("c2pa "))).toHaveLength(3);
    expect(names.filter((name: string) => name.startsWith("original "))).toHaveLength(1);
    // Revocation at gen_time from the CRLs captured at sealing, for both chains.
    expect(names).toEqual(expect.arrayContaining(["revocation tsa-1", "revocation c2pa-1"]));
    expect(report.revocation).toMatchObject({ tsa: { status: "checked" }, c2pa: { status: "checked" } });
    const readable = proofVerify(genuine.zip, ...pins);
    expect(readable.status).toBe(0);
    expect(readable.stdout).toContain("VERIFIED");
    expect(readable.stdout).toContain("(pinned)");
    expect(readable.stdout).toContain("authority (tsa): checked");
  });

  it("fails on an edited manifest, a swapped token and a replaced file", () => {
    const edited = tampered((dir) =>
      writeFileSync(join(dir, "manifest.json"), readFileSync(join(dir, "manifest.json"), "utf8").replace('"external_reference":"', '"external_reference":"X')),
    );
    const a = proofVerify(edited, "--json");
    expect(a.status).toBe(1);
    expect(failed(a.report)).toEqual(["timestamp_imprint"]);

    const swapped = tampered((dir) => cpSync(join(other.folder, "proof.tsr"), join(dir, "proof.tsr")));
    const b = proofVerify(swapped, "--json");
    expect(b.status).toBe(1);
    expect(failed(b.report)).toEqual(["timestamp_imprint"]);

    const replaced = tampered((dir) => {
      const jpeg = readdirSync(join(dir, "files")).find((name) => name.endsWith(".jpg"))!;
      const otherJpeg = readdirSync(join(other.folder, "files")).find((name) => name.endsWith(".jpg"))!;
      cpSync(join(other.folder, "files", otherJpeg), join(dir, "files", jpeg));
    });
    const c = proofVerify(replaced, "--json");
    expect(c.status).toBe(1);
    expect(failed(c.report)).toEqual([expect.stringMatching(/^file med_/)]);
    expect(proofVerify(replaced).stdout).toContain("NOT VERIFIED");
  });

  it("fails on a forged but self-consistent package (an authority with the same names, a new token) once the genuine root is pinned", () => {
    const pins = pinnedRoots(genuine.zip);
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "forger-")), "pki"));
    const forged = tampered((dir) => {
      writeFileSync(join(dir, "manifest.json"), readFileSync(join(dir, "manifest.json"), "utf8").replace('"external_reference":"', '"external_reference":"X'));
      execFileSync("openssl", ["ts", "-query", "-data", "manifest.json", "-sha256", "-cert", "-out", "request.tsq"], { cwd: dir, stdio: "pipe" });
      execFileSync("openssl", ["ts", "-reply", "-config", join(forger, "tsa-test.cnf"), "-queryfile", "request.tsq", "-out", "proof.tsr"], {
        cwd: dir,
        stdio: "pipe",
      });
      cpSync(join(forger, "tsa-test-root.pem"), join(dir, "chain.pem"));
    });
    // Unpinned, the forged timestamp is consistent with its own chain: only a pin tells it apart.
    const unpinned = proofVerify(forged, "--json").report;
    expect(unpinned.checks.filter((check: { name: string }) => check.name.startsWith("timestamp_")).every((check: { ok: boolean }) => check.ok)).toBe(true);
    const pinned = proofVerify(forged, ...pins, "--json");
    expect(pinned.status).toBe(1);
    expect(failed(pinned.report)).toContain("tsa_root_pinned");
  });

  it("checks the revocation data: a CRL listing the authority's certificate as revoked before gen_time fails, revoked after it passes, a forged CRL fails", () => {
    const pins = pinnedRoots(genuine.zip);
    const genEpoch = Math.floor(Date.parse(genuine.proof.timestamp.gen_time) / 1000);
    /** The stack's authority CA, copied, revoking the package's authority certificate at `at` (epoch seconds, through faketime). */
    const revokedCrl = (at: number, reason: string) => {
      const ca = join(mkdtempSync(join(tmpdir(), "ca-")), "pki");
      cpSync(join(stateDir, "local", "pki"), ca, { recursive: true });
      execFileSync(
        "faketime",
        [`@${at}`, "openssl", "ca", "-config", "tsa-test-root-ca.cnf", "-revoke", join(genuine.folder, "revocation", "tsa-1.pem"), "-crl_reason", reason],
        { cwd: ca, stdio: "pipe" },
      );
      return localCrl(ca, "tsa-test-root");
    };
    const before = proofVerify(
      tampered((dir) => writeFileSync(join(dir, "revocation", "tsa-1.crl"), revokedCrl(genEpoch - 3600, "keyCompromise"))),
      ...pins,
      "--json",
    );
    expect(before.status).toBe(1);
    expect(failed(before.report)).toEqual(["revocation tsa-1"]);
    expect(before.report.checks.find((check: { name: string }) => check.name === "revocation tsa-1").detail).toMatch(
      /revoked .*keyCompromise: before gen_time/,
    );

    const after = proofVerify(
      tampered((dir) => writeFileSync(join(dir, "revocation", "tsa-1.crl"), revokedCrl(genEpoch + 60, "superseded"))),
      ...pins,
      "--json",
    );
    expect(failed(after.report)).toEqual([]);
    expect(after.report.checks.find((check: { name: string }) => check.name === "revocation tsa-1").detail).toMatch(/after gen_time/);

    // A CA of the same name but another key (what a forger has): its CRL is not the issuer's.
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "crl-forger-")), "pki"));
    const forged = proofVerify(
      tampered((dir) => writeFileSync(join(dir, "revocation", "c2pa-1.crl"), localCrl(forger, "c2pa-test-root"))),
      ...pins,
      "--json",
    );
    expect(forged.status).toBe(1);
    expect(failed(forged.report)).toEqual(["revocation c2pa-1"]);
    expect(forged.report.checks.find((check: { name: string }) => check.name === "revocation c2pa-1").detail).toMatch(/not signed by the CA/);
  });

  it("refuses bad usage with exit 2", () => {
    expect(proofVerify().status).toBe(2);
    expect(proofVerify(genuine.zip, "--tsa-root-sha256", "abc").status).toBe(2);
  });
});
