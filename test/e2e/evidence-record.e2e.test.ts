import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { pathWithProofVerify } from "./support/proof-verify-on-path.ts";
import { decodeEvidenceRecord } from "../../shared/evidence-record.ts";

/**
 * Issue 14 point 5, judged: an evidence record renewed by the sweep verifies with the offline verifier
 * (docs/adr/0022); with faketime set after every certificate's expiry, each archive timestamp still holds
 * as made but the package is NOT VERIFIED, its latest renewal no longer valid (issue 24 point 5, ADR 0035). One stack's state, restarted thrice (first stamps made due, a renewal made due,
 * then another hash algorithm); both proofs are sealed before first stamps are due, so they land in one
 * batch, under one archive timestamp.
 */
const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "evidence-stack-"));
let stack: Stack;
let genuine: Awaited<ReturnType<typeof sealedPackage>>;
let other: Awaited<ReturnType<typeof sealedPackage>>;

/**
 * Runs the cron sweeps once and waits until both proofs' records hold `archiveTimestamps` (the scheduled
 * handler runs the sweeps in waitUntil: /__scheduled answers before they end). Read from the public JSON.
 */
async function sweep(archiveTimestamps: number) {
  const response = await fetch(`${stack.baseUrl}/__scheduled?time=${Date.now()}`);
  await response.text();
  expect(response.ok).toBe(true);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const counts = await Promise.all(
      [genuine, other].map(
        async (sealed) =>
          ((await (await fetch(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}`)).json()) as { evidence_record: { archive_timestamps: number } | null })
            .evidence_record?.archive_timestamps ?? 0,
      ),
    );
    if (counts.every((count) => count === archiveTimestamps)) return;
    if (Date.now() > deadline)
      throw new Error(`evidence records hold ${counts.join(", ")} archive timestamps, not ${archiveTimestamps}:\n${stack.output().slice(-3000)}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

/** The proof's package as it is now, unzipped. */
async function download(packageUrl: string) {
  const dir = mkdtempSync(join(tmpdir(), "evidence-package-"));
  const zip = join(dir, "proof.zip");
  writeFileSync(zip, Buffer.from(await (await fetch(packageUrl)).arrayBuffer()));
  const folder = join(dir, "unzipped");
  execFileSync("unzip", ["-q", zip, "-d", folder]);
  return { zip, folder };
}

const STACK_ENV = { EVIDENCE_FIRST_STAMP_WITHIN_MINUTES: "0", DEV_SWEEP_INTERVAL_SECONDS: "86400" };

/**
 * Sets every evidence record's next renewal in the past, as time passing would: in the stack's local D1,
 * written while the stack is stopped (a running local D1 does not reliably see another process's write),
 * then the same stack started again on the same state.
 */
async function makeRenewalsDue() {
  await stack.stop();
  execFileSync(
    process.execPath,
    [
      join(root, "node_modules/wrangler/bin/wrangler.js"),
      "d1",
      "execute",
      "DB",
      "--local",
      "--persist-to",
      join(stateDir, "state"),
      "--command",
      "UPDATE evidence_records SET due_at = '2000-01-01T00:00:00.000Z'",
    ],
    {
      cwd: root,
      stdio: "pipe",
    },
  );
  stack = await startStack({ stateDir, env: STACK_ENV });
}

const packageUrl = (proofId: string) => `${stack.baseUrl}/v1/public/proofs/${proofId}/package`;

beforeAll(async () => {
  // Sealed while first stamps wait an hour to gather a batch: no sweep round (the stack's first one comes when
  // the local queue delivers it, sometimes after the first proof is sealed) may stamp one proof alone.
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: STACK_ENV.DEV_SWEEP_INTERVAL_SECONDS } });
  genuine = await sealedPackage(stack);
  other = await sealedPackage(stack);
  // The first archive timestamp, over both proofs at once, once first stamps are due at once.
  await stack.stop();
  stack = await startStack({ stateDir, env: STACK_ENV });
  await sweep(1);
  // Then a renewal: archive timestamp 2 covers archive timestamp 1 (RFC 4998 §5.2).
  await makeRenewalsDue();
  await sweep(2);
  genuine = { ...genuine, ...(await download(packageUrl(genuine.proof.id))) };
  other = { ...other, ...(await download(packageUrl(other.proof.id))) };
}, 300_000);

/** The same stack restarted with SHA-512 as the archive timestamps' algorithm: the sweep's hash-tree renewal (RFC 4998 §5.2). */
async function hashTreeRenewed() {
  await stack.stop();
  stack = await startStack({ stateDir, env: { ...STACK_ENV, EVIDENCE_HASH_ALGORITHM: "SHA-512" } });
  await sweep(3);
  return download(packageUrl(genuine.proof.id));
}
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** The verifier as a stranger runs it, optionally under faketime. */
function proofVerify(args: string[], fakeTime?: string) {
  const command = fakeTime
    ? ["faketime", [fakeTime, process.execPath, join(root, "verifier/bin/proof-verify.ts"), ...args]]
    : [process.execPath, [join(root, "verifier/bin/proof-verify.ts"), ...args]];
  const result = spawnSync(command[0] as string, command[1] as string[], { encoding: "utf8", cwd: tmpdir() });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, report: args.includes("--json") ? JSON.parse(result.stdout) : null };
}
type Check = { name: string; result: string; detail: string };
const failed = (report: { checks: Check[] }) => report.checks.filter((check) => check.result === "fail").map((check) => check.name);
/** The evidence record's steps (one per archive timestamp), behind the evidence_record check. */
const steps = (report: { evidence_record: { steps: Check[] } }) => report.evidence_record.steps;
const failedSteps = (report: { evidence_record: { steps: Check[] } }) =>
  steps(report)
    .filter((one) => one.result === "fail")
    .map((one) => one.name);
const pins = (zip: string) => {
  const report = proofVerify([zip, "--json"]).report;
  return ["--tsa-root-sha256", report.tsa_root_sha256, "--service-root-sha256", report.service_root_sha256];
};

/** A copy of the genuine package's folder, changed by `change`, zipped again with every entry. */
function tampered(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "evidence-tampered-"));
  const folder = join(dir, "package");
  cpSync(genuine.folder, folder, { recursive: true });
  change(folder);
  const zip = join(dir, "package.zip");
  execFileSync("zip", ["-qr", zip, ...readdirSync(folder)], { cwd: folder });
  return zip;
}

/** The latest notAfter of every certificate the package holds (chain.pem, the C2PA anchor, the tokens' and files' signers, revocation/). */
function latestCertificateExpiry(folder: string): number {
  const pems = [
    join(folder, "chain.pem"),
    join(folder, "c2pa-trust-anchor.pem"),
    ...readdirSync(join(folder, "revocation"))
      .filter((name) => name.endsWith(".pem"))
      .map((name) => join(folder, "revocation", name)),
  ];
  const fromPem = pems.flatMap((file) => {
    const blocks = readFileSync(file, "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    return blocks.map((block) => execFileSync("openssl", ["x509", "-noout", "-enddate"], { input: block }).toString());
  });
  const fromToken = execFileSync("openssl", ["pkcs7", "-inform", "DER", "-print_certs", "-text"], {
    input: execFileSync("openssl", ["ts", "-reply", "-in", join(folder, "proof.tsr"), "-token_out"]),
  })
    .toString()
    .match(/Not After : .+/g)!;
  const dates = [...fromPem.map((line) => line.replace("notAfter=", "")), ...fromToken.map((line) => line.replace("Not After : ", ""))].map((text) =>
    Date.parse(text.trim()),
  );
  expect(dates.every((date) => Number.isFinite(date))).toBe(true);
  return Math.max(...dates);
}

describe("evidence records (RFC 4998) in the package, verified offline", () => {
  it("the sweep gave both proofs one archive timestamp (one authority call for the batch), then renewed it", () => {
    const mine = decodeEvidenceRecord(readFileSync(join(genuine.folder, "evidence-record.ers")));
    const theirs = decodeEvidenceRecord(readFileSync(join(other.folder, "evidence-record.ers")));
    expect(mine.chains).toHaveLength(1);
    expect(mine.chains[0]).toHaveLength(2);
    // The same token over one hash tree's root, different reduced trees.
    expect(Buffer.from(mine.chains[0]![0]!.timeStamp).equals(Buffer.from(theirs.chains[0]![0]!.timeStamp))).toBe(true);
    expect(mine.chains[0]![0]!.reducedHashtree).not.toEqual(theirs.chains[0]![0]!.reducedHashtree);
  });

  it("an evidence record renewed by the sweep verifies with proof-verify: every check holds, roots pinned, exit 0", () => {
    const { status, report, stdout } = proofVerify([genuine.zip, ...pins(genuine.zip), "--json"]);
    expect(failed(report)).toEqual([]);
    expect(status).toBe(0);
    // A test proof's record is renewed by the simulated test authority, and says so.
    expect(report.evidence_record.summary).toMatchObject({
      archive_timestamps: 2,
      chains: 1,
      renewal_overdue: false,
      latest_authority: expect.stringContaining("no legal value"),
    });
    expect(report.checks.find((check: Check) => check.name === "evidence_record").result).toBe("pass");
    expect(steps(report).map((one) => one.name)).toEqual(
      expect.arrayContaining([
        "archive_timestamp:1:covers",
        "archive_timestamp:1:token",
        "archive_timestamp:1:chain",
        "archive_timestamp:1:root_pinned",
        "archive_timestamp:2:covers",
        "archive_timestamp:2:chain",
        "timestamp_chain_when_archived",
      ]),
    );
    expect(steps(report).find((one) => one.name === "archive_timestamp:1:covers")!.detail).toContain("revocation/");
    expect(stdout).not.toContain("FAIL");
    const readable = proofVerify([genuine.zip, ...pins(genuine.zip)]);
    expect(readable.stdout).toContain("Evidence record (RFC 4998): 2 archive timestamp(s)");
    expect(readable.stdout).toMatch(/renewal is due before then/);
  });

  it("with faketime after every certificate's expiry: not verified, the evidence record's renewal being overdue, or the package having none", () => {
    const after = new Date(latestCertificateExpiry(genuine.folder) + 86_400_000);
    // An absolute date: the clock starts there (faketime's "@" form is not parsed by this faketime).
    const fakeTime = after.toISOString().slice(0, 19).replace("T", " ");
    // faketime really moves the clock the verifier reads.
    expect(spawnSync("faketime", [fakeTime, process.execPath, "-e", "console.log(new Date().getFullYear())"], { encoding: "utf8" }).stdout.trim()).toBe(
      String(after.getUTCFullYear()),
    );
    // Plain openssl, today's way, fails then: the certificates have expired.
    const openssl = spawnSync("faketime", [fakeTime, "openssl", "ts", "-verify", "-in", "proof.tsr", "-data", "manifest.json", "-CAfile", "chain.pem"], {
      cwd: genuine.folder,
      encoding: "utf8",
    });
    expect(openssl.status).not.toBe(0);
    // Every archive timestamp still holds as made, but the latest renewal is no longer valid now (issue 24, point 5).
    const { status, report } = proofVerify([genuine.zip, ...pins(genuine.zip), "--json"], fakeTime);
    expect(failedSteps(report)).toEqual([]);
    expect(failed(report)).toEqual(["long_term"]);
    expect(report.checks.find((check: Check) => check.name === "long_term").detail).toContain("renewal is overdue");
    expect(status).toBe(1);
    expect(report.evidence_record.summary).toMatchObject({ archive_timestamps: 2, renewal_overdue: true });
    const readable = proofVerify([genuine.zip, ...pins(genuine.zip)], fakeTime);
    expect(readable.stdout).toMatch(/expired on .*overdue for renewal/);
    expect(readable.stdout).toContain("\nNOT VERIFIED");
    // Without its evidence record, nothing proves the token was made while the authority's certificate was valid.
    const stripped = tampered((dir) => rmSync(join(dir, "evidence-record.ers")));
    const without = proofVerify([stripped, ...pins(genuine.zip), "--json"], fakeTime);
    expect(failed(without.report)).toEqual(["long_term"]);
    expect(without.report.checks.find((check: Check) => check.name === "long_term").detail).toContain("no evidence record");
    expect(without.status).toBe(1);
  });

  it("after SHA-512 replaces SHA-256, the sweep's hash-tree renewal starts a new chain that still verifies (under faketime, overdue for renewal)", async () => {
    const renewed = await hashTreeRenewed();
    const er = decodeEvidenceRecord(readFileSync(join(renewed.folder, "evidence-record.ers")));
    expect(er.chains.map((chain) => chain.map((stamp) => stamp.digestAlgorithm))).toEqual([["SHA-256", "SHA-256"], ["SHA-512"]]);
    const pinned = pins(renewed.zip);
    const { status, report } = proofVerify([renewed.zip, ...pinned, "--json"]);
    expect(failed(report)).toEqual([]);
    expect(status).toBe(0);
    expect(report.evidence_record.summary).toMatchObject({ archive_timestamps: 3, chains: 2 });
    expect(steps(report).find((one) => one.name === "archive_timestamp:3:covers")!.detail).toContain("hash-tree renewal");
    const fakeTime = new Date(latestCertificateExpiry(renewed.folder) + 86_400_000).toISOString().slice(0, 19).replace("T", " ");
    const late = proofVerify([renewed.zip, ...pinned, "--json"], fakeTime);
    expect(failedSteps(late.report)).toEqual([]);
    expect(failed(late.report)).toEqual(["long_term"]);
  }, 120_000);

  it("VERIFY.md's step 8 runs as written in the unzipped package: openssl counts the archive timestamps, proof-verify checks them (English and French alike)", () => {
    const markdown = readFileSync(join(genuine.folder, "VERIFY.md"), "utf8");
    const step8 = (heading: string) => {
      const language = markdown.split(/^## /m).find((part) => part.startsWith(heading))!;
      const from = language.slice(language.search(/^### 8\. /m));
      // Step 8 alone: step 9 (the sealed reports) follows it.
      const section = from.slice(0, from.slice(1).search(/^### /m) + 1 || undefined);
      return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
    };
    expect(step8("English")).toHaveLength(2);
    expect(step8("Français")).toEqual(step8("English"));
    expect(markdown).toContain("openssl cannot check an evidence record by itself");
    expect(markdown).toContain("openssl ne sait pas vérifier seul un enregistrement de preuve");
    const PATH = pathWithProofVerify();
    // Step 1 saves the roots proof-verify is pinned to, taken from the list the service publishes (the stack
    // restarted on another port since the package was downloaded: its list is asked there).
    const language = markdown.split(/^## /m).find((part) => part.startsWith("English"))!;
    const step1 = language
      .slice(language.search(/^### 1\. /m))
      .match(/```sh\n([\s\S]*?)```/)![1]!
      .replace(/curl -sf \S+\/v1\/public\/trust-anchors/, `curl -sf ${stack.baseUrl}/v1/public/trust-anchors`);
    expect(spawnSync("bash", ["-e", "-o", "pipefail", "-c", step1], { cwd: genuine.folder, encoding: "utf8" }).status).toBe(0);
    const [count, verify] = step8("English").map((block) =>
      spawnSync("bash", ["-e", "-o", "pipefail", "-c", block], { cwd: genuine.folder, encoding: "utf8", env: { ...process.env, PATH } }),
    );
    expect(count!.status).toBe(0);
    expect(count!.stdout.trim()).toBe("2");
    expect(verify!.status, verify!.stdout).toBe(0);
    expect(verify!.stdout).toContain("Evidence record (RFC 4998): 2 archive timestamp(s)");
    expect(verify!.stdout).toMatch(/\nVERIFIED \(TEST PROOF, no legal value\)\n/);
  });

  it("fails on an evidence record of another proof, and on a tampered manifest", () => {
    const swapped = tampered((dir) => cpSync(join(other.folder, "evidence-record.ers"), join(dir, "evidence-record.ers")));
    const a = proofVerify([swapped, "--json"]);
    expect(a.status).toBe(1);
    expect(failed(a.report)).toEqual(["evidence_record"]);
    expect(failedSteps(a.report)).toEqual(["archive_timestamp:1:covers"]);

    const edited = tampered((dir) =>
      writeFileSync(join(dir, "manifest.json"), readFileSync(join(dir, "manifest.json"), "utf8").replace('"external_reference":"', '"external_reference":"X')),
    );
    const b = proofVerify([edited, "--json"]);
    expect(b.status).toBe(1);
    expect(failed(b.report)).toEqual(expect.arrayContaining(["timestamp_imprint", "evidence_record"]));
    expect(failedSteps(b.report)).toContain("archive_timestamp:1:covers");

    const dropped = tampered((dir) => rmSync(join(dir, "revocation", readdirSync(join(dir, "revocation")).find((name) => name.endsWith(".crl"))!)));
    expect(failedSteps(proofVerify([dropped, "--json"]).report)).toContain("archive_timestamp:1:covers");
  });
});
