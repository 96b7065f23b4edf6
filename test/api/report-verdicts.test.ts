import { beforeAll, describe, expect, it } from "vitest";
import { env, exports } from "cloudflare:workers";
import { verifyProof } from "../../shared/verification/verify-proof-core.ts";
import { reportKey } from "../../src/storage/objects/bucket.ts";
import { API, callJson } from "./support/client.ts";
import { markFixtureSealed, storedFixtureProof } from "./support/sealed-fixture.ts";
import {
  PACKAGE_A,
  PACKAGE_AFTER,
  REPORT_A_OVERLAID_AND_RESTAMPED,
  REPORT_A_SEALED_BY_LIVE_IDENTITY,
  TEST_SERVICE_ROOT_SHA256,
} from "./fixtures/sealed-reports.ts";

const base64Bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

/** A fixture package: gzip'd JSON of base64 entries by their names in the ZIP. */
async function unpacked(packed: string): Promise<Map<string, Uint8Array>> {
  const json = await new Response(new Blob([base64Bytes(packed)]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  return new Map(Object.entries(JSON.parse(json) as Record<string, string>).map(([name, base64]) => [name, base64Bytes(base64)]));
}

const sha256Hex = async (bytes: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** The core's checks of a package, by name: result and detail. */
async function checksOf(entries: Map<string, Uint8Array>) {
  const result = await verifyProof({ entries, files: new Map(), pins: { serviceRootSha256: TEST_SERVICE_ROOT_SHA256 }, now: new Date() });
  return Object.fromEntries(result.checks.map((check) => [check.name, check]));
}

/** The package with `name` replaced (or added, or removed when `bytes` is null). */
function withEntry(entries: Map<string, Uint8Array>, name: string, bytes: Uint8Array | null): Map<string, Uint8Array> {
  const changed = new Map(entries);
  if (bytes === null) changed.delete(name);
  else changed.set(name, bytes);
  return changed;
}

let proofA: Map<string, Uint8Array>;
let after: Map<string, Uint8Array>;
let reportA: Uint8Array;

beforeAll(async () => {
  proofA = await unpacked(PACKAGE_A);
  after = await unpacked(PACKAGE_AFTER);
  reportA = proofA.get("report.pdf")!;
});

describe("the core checks the sealed reports a package carries (report, pair_report)", () => {
  it("passes a proof's genuine report, and says not checked when the package has none", async () => {
    const checks = await checksOf(proofA);
    expect(checks.manifest_seal?.result).toBe("pass");
    expect(checks.report).toMatchObject({ result: "pass" });
    expect(checks.report?.detail).toContain("sealed by the certificate that sealed manifest.p7s");
    expect(checks.pair_report?.result).toBe("not_checked");
    expect((await checksOf(withEntry(proofA, "report.pdf", null))).report?.result).toBe("not_checked");
  });

  it("refuses another proof's genuine report, naming the attachment that is not this package's", async () => {
    const checks = await checksOf(withEntry(proofA, "report.pdf", after.get("report.pdf")!));
    expect(checks.report).toMatchObject({ result: "fail" });
    expect(checks.report?.detail).toContain("the manifest.json it carries is not this package's manifest.json");
  });

  it("refuses a report sealed by another identity (the live one, under another root)", async () => {
    const checks = await checksOf(withEntry(proofA, "report.pdf", (await unpacked(REPORT_A_SEALED_BY_LIVE_IDENTITY)).get("report.pdf")!));
    expect(checks.report?.result).toBe("fail");
    expect(checks.report?.detail).toContain("does not chain to the service root");
  });

  it("refuses junk bytes named report.pdf, and a report with one byte changed", async () => {
    expect((await checksOf(withEntry(proofA, "report.pdf", new TextEncoder().encode("%PDF-1.7 forged")))).report?.result).toBe("fail");
    const changed = reportA.slice();
    // A byte of the first revision (the page's content stream), inside both signatures' ranges.
    changed[2_000] = changed[2_000]! ^ 0x01;
    const checks = await checksOf(withEntry(proofA, "report.pdf", changed));
    expect(checks.report?.result).toBe("fail");
    expect(checks.report?.detail).toContain("not made over its signed byte range");
  });

  it("refuses a report whose first page was overlaid after the seal and stamped again by the same authority (forger finding R2)", async () => {
    const forged = (await unpacked(REPORT_A_OVERLAID_AND_RESTAMPED)).get("report.pdf")!;
    const checks = await checksOf(withEntry(proofA, "report.pdf", forged));
    expect(checks.report?.result).toBe("fail");
    expect(checks.report?.detail).toContain("after its seal, the first page's /Contents, /Resources changed");
  });

  it("passes an after's report and pair report, and refuses a pair report that is not the pair's", async () => {
    const checks = await checksOf(after);
    expect(checks.report?.result).toBe("pass");
    expect(checks.pair_report?.result).toBe("pass");
    expect(checks.pair_report?.detail).toContain("after-manifest.json, after-manifest.p7s, after-proof.tsr, before-manifest.json");
    const swapped = await checksOf(withEntry(after, "pair-report.pdf", after.get("report.pdf")!));
    expect(swapped.pair_report?.result).toBe("fail");
    expect(swapped.pair_report?.detail).toContain("does not carry after-manifest.json");
    // A pair report in the package of a proof that is no after.
    expect((await checksOf(withEntry(proofA, "pair-report.pdf", after.get("pair-report.pdf")!))).pair_report?.result).toBe("fail");
  });
});

describe("the package holds nothing the service did not put there (package_contents, forger finding O4)", () => {
  it("fails on an added Report-final.pdf, naming it; what VERIFY.md's commands write is named and not failed", async () => {
    const extra = await checksOf(withEntry(proofA, "Report-final.pdf", reportA));
    expect(extra.package_contents).toMatchObject({ result: "fail" });
    expect(extra.package_contents?.detail).toContain("Report-final.pdf");
    expect(extra.report?.result).toBe("pass");
    const outputs = await checksOf(withEntry(withEntry(proofA, "tsa-root.pem", new Uint8Array()), "report-nssdb/cert9.db", new Uint8Array()));
    expect(outputs.package_contents).toMatchObject({ result: "pass" });
    expect(outputs.package_contents?.detail).toContain("tsa-root.pem, report-nssdb/cert9.db");
    expect((await checksOf(proofA)).package_contents?.result).toBe("pass");
  });
});

describe("the public verdict checks the stored report; the JSON names it; verify finds it (forger finding R3)", () => {
  let proofId: string;
  let storedReport: string;
  let sha256: string;

  beforeAll(async () => {
    const stored = await storedFixtureProof({
      manifest: proofA.get("manifest.json")!,
      manifestSeal: proofA.get("manifest.p7s")!,
      timestampResponse: proofA.get("proof.tsr")!,
      timestampChain: proofA.get("chain.pem")!,
      c2paTrustAnchor: proofA.get("c2pa-trust-anchor.pem")!,
    });
    const { run, sealedAt } = stored;
    proofId = stored.proofId;
    storedReport = reportKey(proofId, "proof", run);
    await env.FILES.put(storedReport, reportA);
    sha256 = await sha256Hex(reportA);
    await markFixtureSealed(stored, { manifestSha256: await sha256Hex(proofA.get("manifest.json")!), sealCertificateSha256: "0".repeat(64) });
    await env.DB.prepare("INSERT INTO proof_reports (proof_id, kind, object_key, sha256, size, language, made_at) VALUES (?, 'proof', ?, ?, ?, 'en', ?)")
      .bind(proofId, storedReport, sha256, reportA.byteLength, sealedAt)
      .run();
  });

  it("publishes the report's SHA-256 and URL, and its check in the verification", async () => {
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(body.report).toEqual({ sha256, url: expect.stringMatching(new RegExp(`/v1/public/proofs/${proofId}/report\\.pdf$`)) });
    expect(body.pair_report).toBeNull();
    const report = body.verification.checks.find((check: { name: string }) => check.name === "report");
    expect(report).toMatchObject({ result: "pass" });
  });

  it("answers POST /v1/public/verify with the report's hash: the sealed report of that proof", async () => {
    const { status, body } = await callJson("/v1/public/verify", { method: "POST", body: { sha256 } });
    expect(status).toBe(200);
    expect(body.data).toEqual([expect.objectContaining({ proof_id: proofId, file_id: null, match: "report" })]);
    const byBytes = await exports.default.fetch(
      new Request(`${API}/v1/public/verify`, { method: "POST", body: reportA, headers: { "Content-Type": "application/pdf" } }),
    );
    expect(((await byBytes.json()) as { data: unknown[] }).data).toEqual([expect.objectContaining({ proof_id: proofId, match: "report" })]);
  });

  it("fails the report check once the stored report is not the proof's (another proof's put in its place)", async () => {
    await env.FILES.put(storedReport, after.get("report.pdf")!);
    try {
      // A fresh answer (the edge cache keeps a version until a renewal, a re-hash or a report changes its key).
      const { body } = await callJson(`/v1/public/proofs/${proofId}`, { headers: { "If-None-Match": '"none"' } });
      const report = body.verification.checks.find((check: { name: string }) => check.name === "report");
      expect(report).toMatchObject({ result: "fail" });
      expect(body.verification.status).toBe("invalid");
    } finally {
      await env.FILES.put(storedReport, reportA);
    }
  });
});
