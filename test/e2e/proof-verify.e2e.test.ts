import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureLocalPki, localCrl } from "../../sealer/src/pki/ensure-local-pki.ts";
import { startStack, type Stack } from "./support/stack.ts";
import { publishedRoots, sealedPackage } from "./support/sealed-package.ts";

const root = resolve(import.meta.dirname, "../..");
/** The stack's own folder, so that its local PKI (the CAs that issued the package's certificates) can be reached. */
const stateDir = mkdtempSync(join(tmpdir(), "proof-verify-stack-"));
let stack: Stack;
let genuine: Awaited<ReturnType<typeof sealedPackage>>;
let other: Awaited<ReturnType<typeof sealedPackage>>;
/** A proof whose JPEG arrived with earlier Content Credentials (the genuine package's signed JPEG, sent again). */
let withCredentials: Awaited<ReturnType<typeof sealedPackage>>;
let live: Awaited<ReturnType<typeof sealedPackage>>;
/** The test and live roots, as the service publishes them, and the public JSON of `withCredentials`. */
let pins: string[];
let livePins: string[];
let published: { verification: { verdict: string; test_mode: boolean; checks: { name: string }[] } };
// Every request to the stack is made here: a dev stack closes idle connections (and reloads as files change),
// which a request made after seconds of offline checks sometimes met as "other side closed".
beforeAll(async () => {
  stack = await startStack({ stateDir });
  genuine = await sealedPackage(stack);
  other = await sealedPackage(stack);
  const jpeg = readdirSync(join(genuine.folder, "files")).find((name) => name.endsWith(".jpg"))!;
  withCredentials = await sealedPackage(stack, "test", [
    { file: jpeg, type: "image/jpeg", bytes: readFileSync(join(genuine.folder, "files", jpeg)) },
    { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
  ]);
  live = await sealedPackage(stack, "live");
  // The roots to pin, obtained outside the package: the service's GET /v1/public/trust-anchors.
  pins = (await publishedRoots(stack, "test")).pins;
  livePins = (await publishedRoots(stack, "live")).pins;
  published = await (await fetch(`${stack.baseUrl}/v1/public/proofs/${withCredentials.proof.id}`)).json();
}, 400_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** The verifier exactly as a stranger runs it from a clone: its own bin, no Worker and no sealer code. */
function proofVerify(...args: string[]) {
  const result = spawnSync(process.execPath, [join(root, "verifier/bin/proof-verify.ts"), ...args], { encoding: "utf8", cwd: tmpdir() });
  return { status: result.status, stdout: result.stdout, report: args.includes("--json") ? JSON.parse(result.stdout) : null };
}
type Report = { checks: { name: string; result: string; detail: string }[]; revocation: { steps: { name: string; result: string; detail: string }[] } };
const failed = (report: Report) => report.checks.filter((check) => check.result === "fail").map((check) => check.name);
const step = (report: Report, name: string) => report.revocation.steps.find((one) => one.name === name)!;

/** A copy of the genuine package's folder, changed by `change`, zipped again. */
function tampered(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "tampered-"));
  const folder = join(dir, "package");
  cpSync(genuine.folder, folder, { recursive: true });
  change(folder);
  const zip = join(dir, "package.zip");
  execFileSync("zip", ["-qr", zip, "."], { cwd: folder });
  return zip;
}

/** The file ids in the sealed manifest's order, the order of the per-file checks. */
const fileIds = (folder: string): string[] => JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")).files.map((file: { id: string }) => file.id);

describe("proof-verify, the offline verifier (verifier/)", () => {
  it("verifies a genuine package sealed on npm run dev, roots pinned: every check holds, exit 0, TEST in the verdict", () => {
    const { status, report } = proofVerify(genuine.zip, ...pins, "--json");
    expect(failed(report)).toEqual([]);
    expect(status).toBe(0);
    expect(report).toMatchObject({
      verdict: "verified",
      test_mode: true,
      verdict_line: "VERIFIED (TEST PROOF, no legal value)",
      manifest_version: 2,
      proof_id: genuine.proof.id,
      manifest_sha256: genuine.proof.manifest_sha256,
      pinned: { tsa: true, service: true },
    });
    const names = report.checks.map((check: { name: string }) => check.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "package_complete",
        "manifest_seal",
        "timestamp_imprint",
        "timestamp_signature",
        "timestamp_signer",
        "timestamp_chain",
        "tsa_root_pinned",
        "service_root_pinned",
        "files_listed",
        "revocation",
        "evidence_record",
        "long_term",
        "mode",
      ]),
    );
    // Each file: its bytes, its C2PA manifest (c2pa-rs, Trusted under both roots) naming this proof, and the JPEG's original.
    for (const kind of ["file_hash", "file_c2pa", "file_names_proof"])
      expect(report.checks.filter((check: { name: string; result: string }) => check.name.startsWith(`${kind}:`) && check.result === "pass")).toHaveLength(3);
    expect(report.checks.filter((check: { name: string; result: string }) => check.name.startsWith("file_original:") && check.result === "pass")).toHaveLength(
      1,
    );
    // Revocation at gen_time from the CRLs captured at sealing, for both chains.
    expect(report.revocation.steps.map((one: { name: string }) => one.name)).toEqual(expect.arrayContaining(["revocation:tsa-1", "revocation:c2pa-1"]));
    expect(report.revocation.summary).toMatchObject({ tsa: { status: "checked" }, c2pa: { status: "checked" } });
    const readable = proofVerify(genuine.zip, ...pins);
    expect(readable.status).toBe(0);
    expect(readable.stdout).toContain("\nVERIFIED (TEST PROOF, no legal value)\n");
    expect(readable.stdout).toContain("(pinned)");
    expect(readable.stdout).toContain("authority (tsa): checked");
  });

  it("never says VERIFIED without both pins: origin not established, exit 3", () => {
    for (const args of [[], pins.slice(0, 2), pins.slice(2)]) {
      const { status, report } = proofVerify(genuine.zip, ...args, "--json");
      expect(failed(report)).toEqual([]);
      expect(report.verdict).toBe("origin_not_established");
      expect(status).toBe(3);
    }
    const readable = proofVerify(genuine.zip);
    expect(readable.stdout).not.toMatch(/^VERIFIED/m);
    expect(readable.stdout).toContain("ORIGIN NOT ESTABLISHED");
  });

  it("fails on an edited manifest, a swapped token and a file of another proof", () => {
    const edited = tampered((dir) =>
      writeFileSync(join(dir, "manifest.json"), readFileSync(join(dir, "manifest.json"), "utf8").replace('"external_reference":"', '"external_reference":"X')),
    );
    const a = proofVerify(edited, ...pins, "--json");
    expect(a.status).toBe(1);
    // The token and the seal no longer cover it, and no file's capture assertion names that reference.
    expect(failed(a.report)).toEqual(["timestamp_imprint", "manifest_seal", ...fileIds(genuine.folder).map((id) => `file_names_proof:${id}`)]);

    const swapped = tampered((dir) => cpSync(join(other.folder, "proof.tsr"), join(dir, "proof.tsr")));
    const b = proofVerify(swapped, ...pins, "--json");
    expect(b.status).toBe(1);
    // The sealed report, when already made at download, carries the genuine token (report, docs/adr/0056).
    const reported = readdirSync(genuine.folder).includes("report.pdf");
    expect(failed(b.report)).toEqual(["timestamp_imprint", ...(reported ? ["report"] : [])]);

    let replacedId = "";
    const replaced = tampered((dir) => {
      const jpeg = readdirSync(join(dir, "files")).find((name) => name.endsWith(".jpg"))!;
      replacedId = jpeg.replace(/\.jpg$/, "");
      const otherJpeg = readdirSync(join(other.folder, "files")).find((name) => name.endsWith(".jpg"))!;
      cpSync(join(other.folder, "files", otherJpeg), join(dir, "files", jpeg));
    });
    const c = proofVerify(replaced, ...pins, "--json");
    expect(c.status).toBe(1);
    // Signed by the service (c2pa-rs still trusts it), but for another proof: it names that proof, not this one. Both were
    // made from the same photo, so its original is the same.
    expect(failed(c.report)).toEqual(["files_listed", `file_hash:${replacedId}`, `file_names_proof:${replacedId}`]);
    expect(proofVerify(replaced, ...pins).stdout).toContain("NOT VERIFIED");

    // Dropped, or added from another proof: the sealed list of files no longer matches.
    const dropped = tampered((dir) => rmSync(join(dir, "files", readdirSync(join(dir, "files")).find((name) => name.endsWith(".png"))!)));
    expect(failed(proofVerify(dropped, ...pins, "--json").report)).toEqual(["files_listed", expect.stringMatching(/^file_hash:/)]);
    const added = tampered((dir) => {
      const otherPng = readdirSync(join(other.folder, "files")).find((name) => name.endsWith(".png"))!;
      cpSync(join(other.folder, "files", otherPng), join(dir, "files", otherPng));
    });
    expect(failed(proofVerify(added, ...pins, "--json").report)).toEqual(["files_listed"]);
  });

  it("fails on a relabelled package re-stamped by another authority with the same names once the genuine roots are pinned", () => {
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "forger-")), "pki"));
    const forged = tampered((dir) => {
      writeFileSync(join(dir, "manifest.json"), readFileSync(join(dir, "manifest.json"), "utf8").replace('"party":"provider"', '"party":"recipient"'));
      execFileSync("openssl", ["ts", "-query", "-data", "manifest.json", "-sha256", "-cert", "-out", "request.tsq"], { cwd: dir, stdio: "pipe" });
      execFileSync("openssl", ["ts", "-reply", "-config", join(forger, "tsa-test.cnf"), "-queryfile", "request.tsq", "-out", "proof.tsr"], {
        cwd: dir,
        stdio: "pipe",
      });
      cpSync(join(forger, "tsa-test-root.pem"), join(dir, "chain.pem"));
      rmSync(join(dir, "request.tsq"));
    });
    // Unpinned, the forged timestamp is consistent with its own chain: only a pin tells it apart.
    const unpinned = proofVerify(forged, "--json").report;
    expect(
      unpinned.checks.filter((check: { name: string }) => check.name.startsWith("timestamp_")).every((check: { result: string }) => check.result === "pass"),
    ).toBe(true);
    expect(unpinned.verdict).not.toBe("verified");
    const pinned = proofVerify(forged, ...pins, "--json");
    expect(pinned.status).toBe(1);
    // The seal was made over the genuine manifest, and every file's capture assertion names the genuine party.
    expect(failed(pinned.report)).toEqual(expect.arrayContaining(["tsa_root_pinned", "manifest_seal"]));
  });

  it("checks the revocation data: a CRL listing the authority's certificate as revoked before gen_time fails, revoked after it passes, a forged CRL fails", () => {
    const genEpoch = Math.floor(Date.parse(genuine.proof.timestamp.gen_time) / 1000);
    /**
     * The stack's authority CA, copied, revoking the package's authority certificate now (after gen_time) for
     * `reason`, or as compromised since `compromisedAt` (epoch seconds: the CRL's invalidity date).
     */
    const revokedCrl = (revocation: { reason: string } | { compromisedAt: number }) => {
      const ca = join(mkdtempSync(join(tmpdir(), "ca-")), "pki");
      cpSync(join(stateDir, "local", "pki"), ca, { recursive: true });
      const how =
        "reason" in revocation
          ? ["-crl_reason", revocation.reason]
          : ["-crl_compromise", `${new Date(revocation.compromisedAt * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`];
      execFileSync("openssl", ["ca", "-config", "tsa-test-root-ca.cnf", "-revoke", join(genuine.folder, "revocation", "tsa-1.pem"), ...how], {
        cwd: ca,
        stdio: "pipe",
      });
      return localCrl(ca, "tsa-test-root");
    };
    const before = proofVerify(
      tampered((dir) => writeFileSync(join(dir, "revocation", "tsa-1.crl"), revokedCrl({ compromisedAt: genEpoch - 3600 }))),
      ...pins,
      "--json",
    );
    expect(before.status).toBe(1);
    expect(failed(before.report)).toEqual(["revocation"]);
    expect(step(before.report, "revocation:tsa-1")).toMatchObject({
      result: "fail",
      detail: expect.stringMatching(/revoked .*keyCompromise: before gen_time/),
    });

    const after = proofVerify(
      tampered((dir) => writeFileSync(join(dir, "revocation", "tsa-1.crl"), revokedCrl({ reason: "superseded" }))),
      ...pins,
      "--json",
    );
    // The CRL judged as such passes (revoked after gen_time); the package no longer holds what manifest.p7s seals (ADR 0049).
    expect(step(after.report, "revocation:tsa-1")).toMatchObject({ result: "pass", detail: expect.stringMatching(/after gen_time/) });
    expect(step(after.report, "revocation_sealed")).toMatchObject({ result: "fail", detail: expect.stringContaining("altered: revocation/tsa-1.crl") });
    expect(failed(after.report)).toEqual(["revocation"]);

    // A CA of the same name but another key (what a forger has): its CRL is not the issuer's.
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "crl-forger-")), "pki"));
    const forged = proofVerify(
      tampered((dir) => writeFileSync(join(dir, "revocation", "c2pa-1.crl"), localCrl(forger, "c2pa-test-root"))),
      ...pins,
      "--json",
    );
    expect(forged.status).toBe(1);
    expect(failed(forged.report)).toEqual(["revocation"]);
    expect(step(forged.report, "revocation:c2pa-1").detail).toMatch(/not signed by the CA/);
  });

  it("verifies a genuine proof whose JPEG arrived with earlier Content Credentials (its original is not checked, and says why)", () => {
    const { status, report } = proofVerify(withCredentials.zip, ...pins, "--json");
    expect(failed(report)).toEqual([]);
    expect(status).toBe(0);
    const original = report.checks.find(
      (check: { name: string; detail: string }) => check.name.startsWith("file_original:") && check.detail.includes("Credentials"),
    );
    expect(original).toMatchObject({ result: "not_checked", detail: expect.stringContaining("earlier Content Credentials") });
    // The public JSON runs the same core on the stored objects: the same verdict, under the same check names.
    expect(published.verification).toMatchObject({ verdict: "verified", test_mode: true });
    expect(published.verification.checks.map((check) => check.name)).toEqual(report.checks.map((check: { name: string }) => check.name));
  });

  it("verifies a live proof with the live roots, without TEST, and refuses it under the test roots", () => {
    const { status, report } = proofVerify(live.zip, ...livePins, "--json");
    expect(failed(report)).toEqual([]);
    expect(status).toBe(0);
    expect(report).toMatchObject({ verdict: "verified", test_mode: false, verdict_line: "VERIFIED" });
    // The test root is never the live one: a live proof does not verify under it.
    const underTest = proofVerify(live.zip, ...pins, "--json");
    expect(underTest.status).toBe(1);
    expect(failed(underTest.report)).toContain("service_root_pinned");
  });

  it("refuses bad usage with exit 2", () => {
    expect(proofVerify().status).toBe(2);
    expect(proofVerify(genuine.zip, "--tsa-root-sha256", "abc").status).toBe(2);
  });
});
