#!/usr/bin/env node
import { readFileSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { renewalLine } from "../../shared/verification/verify-evidence-record.ts";
import type { Verdict } from "../../shared/verification/verify-proof-core.ts";
import { readFolder } from "../src/read-folder.ts";
import { verifyPackage } from "../src/verify-package.ts";

const usage = `Usage: proof-verify <package.zip | unzipped folder> --tsa-root-sha256 <hex> --service-root-sha256 <hex> [--json]

Verifies a verification package offline, trusting nothing in it but the two roots you pin: the SHA-256 of
the timestamp authority's root (--tsa-root-sha256) and of the service's signing root, which seals the proof
(manifest.p7s) and signs its files' Content Credentials (--service-root-sha256; --c2pa-root-sha256 is the
same pin under its former name). Obtain both outside the package: the service's /v1/public/trust-anchors,
docs/trust-anchors.md, the authority's own publication or the EU Trusted List.

The evidence record (evidence-record.ers, RFC 4998) keeps the proof checkable once the authority's
certificate has expired: after that, VERIFIED requires it, with a latest renewal valid today.

Exit codes:
  0  VERIFIED: every check holds, both roots pinned
  1  NOT VERIFIED: a check failed (the report names it and says why)
  2  bad usage
  3  ORIGIN NOT ESTABLISHED: nothing failed, but a root was not pinned, so nothing ties the package to the
     service or the authority (a forger's own CA and authority make a package consistent with itself)
A test proof's verdict line says TEST PROOF (no legal value); --json prints the report, test_mode included.`;

const EXIT_CODES: Record<Verdict, number> = { verified: 0, not_verified: 1, altered: 1, pending: 1, origin_not_established: 3 };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "tsa-root-sha256": { type: "string" },
    "service-root-sha256": { type: "string" },
    "c2pa-root-sha256": { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean" },
  },
});
const pinPattern = /^[0-9a-fA-F]{64}$/;
const servicePins = [values["service-root-sha256"], values["c2pa-root-sha256"]].filter((pin) => pin !== undefined);
if (
  values.help ||
  positionals.length !== 1 ||
  [values["tsa-root-sha256"], ...servicePins].some((pin) => pin !== undefined && !pinPattern.test(pin)) ||
  new Set(servicePins.map((pin) => pin.toLowerCase())).size > 1
) {
  console.error(usage);
  process.exit(values.help ? 0 : 2);
}

// The ZIP, or the folder it was unzipped into (where VERIFY.md's steps run).
const input = statSync(positionals[0]!, { throwIfNoEntry: false })?.isDirectory() ? readFolder(positionals[0]!) : new Uint8Array(readFileSync(positionals[0]!));
const report = await verifyPackage(input, { tsaRootSha256: values["tsa-root-sha256"], serviceRootSha256: servicePins[0] });
if (values.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const marks = { pass: "ok  ", fail: "FAIL", not_checked: "--  " };
  console.log(`Proof ${report.proof_id ?? "?"}, timestamped ${report.gen_time ?? "?"}${report.test_mode ? ", TEST PROOF (no legal value)" : ""}`);
  console.log(`manifest.json SHA-256  ${report.manifest_sha256 ?? "?"}`);
  console.log(`authority root SHA-256 ${report.tsa_root_sha256 ?? "?"}${report.pinned.tsa ? " (pinned)" : " (NOT pinned)"}`);
  console.log(`service root SHA-256   ${report.service_root_sha256 ?? "?"}${report.pinned.service ? " (pinned)" : " (NOT pinned)"}`);
  if (report.seal) console.log(`sealed by              ${report.seal.signer_subject}`);
  console.log("");
  for (const check of report.checks) console.log(`${marks[check.result]}  ${check.name}: ${check.detail}`);
  const evidence = report.evidence_record.summary;
  if (evidence) {
    console.log(
      `\nEvidence record (RFC 4998): ${evidence.archive_timestamps} archive timestamp(s) in ${evidence.chains} chain(s), first ${evidence.first_gen_time}, latest ${evidence.latest_gen_time}.\n${renewalLine(evidence)}`,
    );
  }
  for (const step of [...report.evidence_record.steps, ...report.revocation.steps].filter((one) => one.result === "fail"))
    console.log(`FAIL  ${step.name}: ${step.detail}`);
  const revocation = report.revocation.summary;
  console.log(`\nRevocation data captured at sealing:\n  authority (tsa): ${revocation.tsa.status}, ${revocation.tsa.detail}`);
  console.log(`  C2PA signer (c2pa): ${revocation.c2pa.status}, ${revocation.c2pa.detail}`);
  if (!report.pinned.tsa || !report.pinned.service)
    console.log("\nA root not pinned was taken from the package itself: that proves nothing by itself, so this cannot say VERIFIED (--help).");
  console.log(`\n${report.verdict_line}`);
}
process.exit(EXIT_CODES[report.verdict]);
