#!/usr/bin/env node
import { readFileSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { verifyPackage } from "../src/verify-package.ts";
import { renewalLine } from "../src/verify-evidence-record.ts";
import { readFolder } from "../src/read-folder.ts";

const usage = `Usage: proof-verify <package.zip | unzipped folder> [--tsa-root-sha256 <hex>] [--c2pa-root-sha256 <hex>] [--json]

Verifies a verification package offline. Without pins the roots come from the package itself, which
proves nothing by itself: pin the SHA-256 of the authority's root and of the C2PA root obtained elsewhere
(the authority's publication, the EU Trusted List, the service's /v1/public/trust-anchors, docs/trust-anchors.md).
The evidence record (evidence-record.ers, RFC 4998), when present, keeps the proof checkable after its
certificates expire: each archive timestamp is checked at the time the next one proves it existed.
Exit code 0 only when every check holds; 1 when one fails; 2 on bad usage.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "tsa-root-sha256": { type: "string" }, "c2pa-root-sha256": { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } },
});
const pinPattern = /^[0-9a-fA-F]{64}$/;
if (
  values.help ||
  positionals.length !== 1 ||
  [values["tsa-root-sha256"], values["c2pa-root-sha256"]].some((pin) => pin !== undefined && !pinPattern.test(pin))
) {
  console.error(usage);
  process.exit(values.help ? 0 : 2);
}

// The ZIP, or the folder it was unzipped into (where VERIFY.md's steps run).
const input = statSync(positionals[0]!, { throwIfNoEntry: false })?.isDirectory() ? readFolder(positionals[0]!) : new Uint8Array(readFileSync(positionals[0]!));
const report = await verifyPackage(input, { tsaRootSha256: values["tsa-root-sha256"], c2paRootSha256: values["c2pa-root-sha256"] });
if (values.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`Proof ${report.proof_id ?? "?"}, timestamped ${report.gen_time ?? "?"}`);
  console.log(`manifest.json SHA-256 ${report.manifest_sha256 ?? "?"}`);
  console.log(`authority root SHA-256 ${report.tsa_root_sha256 ?? "?"}${report.pinned.tsa ? " (pinned)" : " (NOT pinned)"}`);
  console.log(`C2PA root SHA-256      ${report.c2pa_root_sha256 ?? "?"}${report.pinned.c2pa ? " (pinned)" : " (NOT pinned)"}\n`);
  for (const check of report.checks) console.log(`${check.ok ? "ok  " : "FAIL"}  ${check.name}: ${check.detail}`);
  const evidence = report.evidence_record;
  console.log(
    evidence
      ? `\nEvidence record (RFC 4998): ${evidence.archive_timestamps} archive timestamp(s) in ${evidence.chains} chain(s), first ${evidence.first_gen_time}, latest ${evidence.latest_gen_time}.\n${renewalLine(evidence)}`
      : "\nNo evidence record (evidence-record.ers) in this package: nothing here proves the token existed before its certificates expire or are revoked. A package downloaded an hour or more after sealing carries one.",
  );
  const revocation = report.revocation;
  if (revocation) {
    console.log("\nRevocation data captured at sealing (each CRL is a check above):");
    console.log(
      `  authority (tsa): ${revocation.tsa.status}, ${revocation.tsa.detail}\n  C2PA signer (c2pa): ${revocation.c2pa.status}, ${revocation.c2pa.detail}`,
    );
  }
  if (!report.pinned.tsa || !report.pinned.c2pa) console.log("\nA root not pinned was taken from the package itself: that proves nothing by itself (--help).");
  console.log(`\n${report.ok ? "VERIFIED" : "NOT VERIFIED"}`);
}
process.exit(report.ok ? 0 : 1);
