import { createHash } from "node:crypto";
import { checkTimestamp } from "../../shared/timestamp-check.ts";
import { rootFingerprints } from "../../shared/trust-anchors.ts";
import { jpegWithoutApp11 } from "./jpeg-original.ts";
import { c2paState } from "./read-c2pa.ts";
import { readZip } from "./read-zip.ts";
import { checkRevocation, type RevocationSummary } from "./check-revocation.ts";
import { pemCertificatesDer } from "../../shared/timestamp-check.ts";
import { verifyEvidenceRecord, type EvidenceSummary } from "./verify-evidence-record.ts";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Report {
  ok: boolean;
  proof_id: string | null;
  gen_time: string | null;
  manifest_sha256: string | null;
  tsa_root_sha256: string | null;
  c2pa_root_sha256: string | null;
  pinned: { tsa: boolean; c2pa: boolean };
  /** The RFC 4998 evidence record's archive timestamps; null when the package carries none (yet). */
  evidence_record: EvidenceSummary | null;
  /** The revocation data captured at sealing (revocation/), per chain: checked, not captured (why), or absent. */
  revocation: RevocationSummary | null;
  checks: Check[];
}

interface ManifestFile {
  id: string;
  content_type: string;
  sha256: string;
  signed_sha256: string;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
/** The formats c2pa-rs reads, by the manifest's content type (WebM cannot carry C2PA: sealed by the manifest alone). */
const C2PA_FORMATS = new Set(["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp", "video/mp4", "video/quicktime"]);

/**
 * Verifies a package trusting nothing in it: the token over manifest.json (imprint, signature, timestamping
 * signer bound by ESS, chain at gen_time), the roots against the pins, each signed file against the manifest,
 * each file's C2PA manifest with c2pa-rs trusting only the package's roots, and JPEG originals against `sha256`.
 */
export async function verifyPackage(
  zip: Uint8Array | Map<string, Uint8Array>,
  pins: { tsaRootSha256?: string; c2paRootSha256?: string },
  now: Date = new Date(),
): Promise<Report> {
  const checks: Check[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const report: Report = {
    ok: false,
    proof_id: null,
    gen_time: null,
    manifest_sha256: null,
    tsa_root_sha256: null,
    c2pa_root_sha256: null,
    pinned: { tsa: !!pins.tsaRootSha256, c2pa: !!pins.c2paRootSha256 },
    evidence_record: null,
    revocation: null,
    checks,
  };
  let entries: Map<string, Uint8Array>;
  try {
    // A ZIP, or the entries of an unzipped package (readFolder).
    entries = zip instanceof Map ? zip : readZip(zip);
  } catch (error) {
    check("package_readable", false, (error as Error).message);
    return report;
  }
  const text = (name: string) => new TextDecoder().decode(entries.get(name) ?? new Uint8Array());
  const manifestBytes = entries.get("manifest.json");
  const tsr = entries.get("proof.tsr");
  const missing = ["manifest.json", "proof.tsr", "chain.pem", "c2pa-trust-anchor.pem"].filter((name) => !entries.has(name));
  check(
    "package_complete",
    missing.length === 0,
    missing.length === 0 ? "manifest.json, proof.tsr, chain.pem, c2pa-trust-anchor.pem present" : `missing: ${missing.join(", ")}`,
  );
  if (!manifestBytes || !tsr) return report;
  report.manifest_sha256 = sha256(manifestBytes);

  const stamp = await checkTimestamp(tsr, manifestBytes, text("chain.pem"));
  report.gen_time = stamp.genTime;
  check("timestamp_granted", stamp.granted, stamp.granted ? `token ${stamp.serial}, policy ${stamp.policy}` : "proof.tsr holds no granted token");
  check(
    "timestamp_imprint",
    stamp.imprintMatches,
    stamp.imprintMatches ? `the token covers manifest.json (SHA-256 ${report.manifest_sha256})` : "the token does not cover this manifest.json",
  );
  check(
    "timestamp_signature",
    stamp.signatureValid,
    stamp.signatureValid ? "the authority's signature over the token verifies" : "the token's signature does not verify (or its signer certificate is absent)",
  );
  check(
    "timestamp_signer",
    stamp.signerCertifiedForTimestamping && stamp.signerCertificateBound,
    "signer certified for timestamping only (critical EKU) and named by the ESS signing-certificate attribute",
  );
  check(
    "timestamp_chain",
    stamp.chainTrusted,
    stamp.chainTrusted
      ? `the signer chains to a root at gen_time ${stamp.genTime}`
      : `the signer does not chain to a root of chain.pem at gen_time ${stamp.genTime ?? "?"}`,
  );
  report.tsa_root_sha256 = stamp.rootCertificate ? sha256(stamp.rootCertificate) : null;
  if (pins.tsaRootSha256) {
    const ok = report.tsa_root_sha256 === pins.tsaRootSha256.toLowerCase();
    check(
      "tsa_root_pinned",
      ok,
      ok ? "the authority's root is the pinned one" : `the authority's root ${report.tsa_root_sha256 ?? "(none)"} is not the pinned ${pins.tsaRootSha256}`,
    );
  }

  // The evidence record (RFC 4998): archive timestamps that keep the token provable once certificates expire.
  const evidence = await verifyEvidenceRecord(entries, text("chain.pem"), { tsr, manifest: manifestBytes, genTime: stamp.genTime }, pins, now);
  checks.push(...evidence.checks);
  report.evidence_record = evidence.summary;

  const c2paRoots = await rootFingerprints(text("c2pa-trust-anchor.pem"));
  report.c2pa_root_sha256 = c2paRoots[0]?.sha256 ?? null;
  if (pins.c2paRootSha256) {
    const ok = c2paRoots.length === 1 && report.c2pa_root_sha256 === pins.c2paRootSha256.toLowerCase();
    check(
      "c2pa_root_pinned",
      ok,
      ok ? "the C2PA signing root is the pinned one" : `the C2PA root ${report.c2pa_root_sha256 ?? "(none)"} is not the pinned ${pins.c2paRootSha256}`,
    );
  }

  let manifest: { proof_id?: string; files?: ManifestFile[] };
  try {
    manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
  } catch {
    check("manifest_json", false, "manifest.json is not JSON");
    return report;
  }
  report.proof_id = manifest.proof_id ?? null;
  const listed = manifest.files ?? [];
  const packaged = [...entries.keys()].filter((name) => name.startsWith("files/") && !name.endsWith("/"));
  const byId = new Map(packaged.map((name) => [name.slice(6).replace(/\.[^.]+$/, ""), name]));
  check(
    "files_listed",
    packaged.length === listed.length && listed.every((file) => byId.has(file.id)),
    `${listed.length} files in the manifest, ${packaged.length} in files/`,
  );
  // The timestamp root signs the C2PA timestamps (sigTst2): c2pa-rs needs it beside the signing root.
  const anchors = `${text("c2pa-trust-anchor.pem")}\n${stamp.rootCertificate ? ((await rootFingerprints(text("chain.pem"))).find((root) => root.sha256 === report.tsa_root_sha256)?.pem ?? "") : ""}`;
  const c2paSignerSerials: string[] = [];
  for (const file of listed) {
    const name = byId.get(file.id);
    const bytes = name ? entries.get(name)! : null;
    const signedHash = bytes ? sha256(bytes) : null;
    check(
      `file ${file.id}`,
      signedHash === file.signed_sha256,
      signedHash === file.signed_sha256
        ? `${name} is the signed file of the manifest`
        : `${name ?? file.id} ${bytes ? "differs from its signed_sha256" : "is missing"}`,
    );
    if (!bytes) continue;
    if (C2PA_FORMATS.has(file.content_type)) {
      const reading = await c2paState(bytes, file.content_type, anchors);
      if (reading.signerSerial) c2paSignerSerials.push(reading.signerSerial);
      check(`c2pa ${file.id}`, reading.state === "Trusted", `c2pa-rs: ${reading.state}${reading.failures.length ? ` (${reading.failures.join(", ")})` : ""}`);
    } else {
      check(`c2pa ${file.id}`, file.sha256 === file.signed_sha256, `${file.content_type} cannot carry C2PA: kept as received, proven by the manifest alone`);
    }
    if (file.content_type === "image/jpeg") {
      const original = sha256(jpegWithoutApp11(bytes));
      check(
        `original ${file.id}`,
        original === file.sha256,
        original === file.sha256
          ? "without its C2PA segments it is the original the device sent"
          : "without its C2PA segments it is not the manifest's original",
      );
    }
  }
  // Revocation at gen_time, from the CRLs captured at sealing (docs/adr/0022).
  const revocation = await checkRevocation(entries, {
    genTime: stamp.genTime,
    tsaSigner: stamp.signerCertificate,
    tsaRoot: stamp.rootCertificate,
    c2paRoots: pemCertificatesDer(text("c2pa-trust-anchor.pem")),
    c2paSignerSerials,
  });
  checks.push(...revocation.checks);
  report.revocation = revocation.summary;
  report.ok = checks.every((c) => c.ok);
  return report;
}
