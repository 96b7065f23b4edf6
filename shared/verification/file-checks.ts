import type * as pkijs from "pkijs";
import { parseCertificate } from "../crl-check.ts";
import { hex } from "../timestamp-check.ts";
import { nameText } from "../trust-anchors.ts";
import type { ManifestFile, SealedManifest } from "./sealed-manifest.ts";
import type { FileEvidence, VerificationCheck } from "./types.ts";

/** The formats c2pa-rs reads, by the manifest's content type (WebM cannot carry C2PA: sealed by the manifest alone). */
export const C2PA_CONTENT_TYPES: ReadonlySet<string> = new Set([
  "image/jpeg",
  "image/png",
  "image/heic",
  "image/heif",
  "image/webp",
  "video/mp4",
  "video/quicktime",
]);

/** The proof-level fields every file's `com.proofseal.capture` assertion repeats from the manifest. */
const PROOF_FIELDS = ["proof_id", "session_id", "organization_id", "mode", "external_reference", "party", "stage"] as const;

/** The before's proof id (the manifest's compare_to also gives the before's manifest hash; the capture assertion names the id). */
function comparedProofId(compareTo: unknown): unknown {
  if (compareTo !== null && typeof compareTo === "object") return (compareTo as { proof_id?: unknown }).proof_id ?? null;
  return compareTo;
}

/**
 * What a file's capture assertion must say, from the sealed manifest: the proof's fields and the file's step
 * and position. A field a version-1 manifest does not hold (organization_id, position) is not compared.
 */
function namedFields(manifest: SealedManifest, file: ManifestFile): [string, unknown][] {
  const expected: [string, unknown][] = PROOF_FIELDS.filter((field) => field in manifest.fields).map((field) => [field, manifest.fields[field]]);
  if ("compare_to" in manifest.fields) expected.push(["compare_to", comparedProofId(manifest.fields.compare_to)]);
  expected.push(["step_id", file.step_id]);
  if (file.position !== null) expected.push(["position", file.position]);
  return expected;
}

const shown = (value: unknown) => (value === undefined ? "nothing" : JSON.stringify(value));

/** The file ids the package (or storage) holds whose capture assertion names another proof. */
export function foreignFiles(manifest: SealedManifest, files: ReadonlyMap<string, FileEvidence>): string[] {
  return [...files.entries()]
    .filter(([, evidence]) => evidence.present && evidence.c2pa?.capture && evidence.c2pa.capture.proof_id !== manifest.proof_id)
    .map(([id]) => id);
}

/**
 * files_listed: the manifest's list of files is exactly the files the package (or storage) holds, and none of
 * them names another proof.
 */
export function filesListed(manifest: SealedManifest, files: ReadonlyMap<string, FileEvidence>): VerificationCheck {
  const listed = new Set(manifest.files.map((file) => file.id));
  const held = [...files.entries()].filter(([, evidence]) => evidence.present).map(([id]) => id);
  const missing = [...listed].filter((id) => !held.includes(id));
  const extra = held.filter((id) => !listed.has(id));
  const foreign = foreignFiles(manifest, files);
  const problems = [
    missing.length ? `missing: ${missing.join(", ")}` : "",
    extra.length ? `not in the sealed manifest: ${extra.join(", ")}` : "",
    foreign.length ? `signed for another proof: ${foreign.join(", ")}` : "",
  ].filter(Boolean);
  return problems.length === 0
    ? { name: "files_listed", result: "pass", detail: `the ${listed.size} files of the sealed manifest, and no other` }
    : { name: "files_listed", result: "fail", detail: `${listed.size} files in the sealed manifest, ${held.length} here; ${problems.join("; ")}` };
}

/** The service roots (the pinned one when pinned), parsed once per verification, to check a C2PA signer against. */
export function serviceRootCertificates(roots: Uint8Array[]): pkijs.Certificate[] {
  return roots.map((der) => parseCertificate(der));
}

const serialDecimal = (certificate: pkijs.Certificate) => BigInt(`0x${hex(certificate.serialNumber.valueBlock.valueHexView) || "0"}`).toString();

/**
 * file_c2pa: c2pa-rs's `Trusted` means the signer chains to one of the roots c2pa-rs was given, which include
 * the authority's root (the C2PA timestamps need it): a signer issued under the authority's root, or under any
 * root named like the service's, would read Trusted too. The signer's certificate must be issued by the
 * service root itself (docs/adr/0027: it issues the C2PA signer directly): named by it, and its signature
 * verifying under the service root's key. A name alone is not enough: anyone can make a CA of that name.
 */
async function c2paCheck(c2pa: NonNullable<FileEvidence["c2pa"]>, roots: pkijs.Certificate[]): Promise<[VerificationCheck["result"], string]> {
  if (c2pa.state !== "Trusted") return ["fail", `c2pa-rs: ${c2pa.state}${c2pa.failures.length ? ` (${c2pa.failures.join(", ")})` : ""}`];
  if (c2pa.signerCertificate === null) return ["fail", "c2pa-rs: Trusted, but the certificate that signed it could not be read"];
  let signer: pkijs.Certificate;
  try {
    signer = parseCertificate(c2pa.signerCertificate);
  } catch {
    return ["fail", "c2pa-rs: Trusted, but the certificate that signed it cannot be read"];
  }
  if (c2pa.signerSerial !== null && serialDecimal(signer) !== c2pa.signerSerial)
    return ["fail", "c2pa-rs: Trusted, but the certificate read is not the one c2pa-rs names as the signer"];
  for (const root of roots) {
    if (root.subject.isEqual(signer.issuer) && (await signer.verify(root).catch(() => false)))
      return ["pass", "c2pa-rs: Trusted, signed by a certificate the service root issued (its signature verifies under the service root's key)"];
  }
  return [
    "fail",
    `c2pa-rs: Trusted, but its signing certificate (issued by ${nameText(signer.issuer)}) was not issued by the service root ${roots.map((root) => nameText(root.subject)).join(" / ") || "(none)"}: its signature does not verify under that root's key (the authority's root, trusted for the C2PA timestamps, or a CA named like the service root, does not vouch for a file's signer)`,
  ];
}

/** file_hash, file_c2pa, file_names_proof and file_original for one file the manifest lists. */
export async function fileChecks(
  manifest: SealedManifest,
  file: ManifestFile,
  evidence: FileEvidence | undefined,
  roots: pkijs.Certificate[],
): Promise<VerificationCheck[]> {
  const check = (kind: string, result: VerificationCheck["result"], detail: string): VerificationCheck => ({ name: `${kind}:${file.id}`, result, detail });
  if (!evidence?.present) return [check("file_hash", "fail", "the signed file is missing")];
  const checks: VerificationCheck[] = [];
  if (evidence.sha256 === null) checks.push(check("file_hash", "not_checked", "the signed file has not been hashed yet"));
  else if (evidence.sha256 === file.signed_sha256)
    checks.push(
      check("file_hash", "pass", `the signed file is the one the sealed manifest lists${evidence.checked_at ? ` (checked ${evidence.checked_at})` : ""}`),
    );
  else checks.push(check("file_hash", "fail", `the signed file's SHA-256 ${evidence.sha256} is not the sealed manifest's ${file.signed_sha256 ?? "(none)"}`));

  if (!C2PA_CONTENT_TYPES.has(file.content_type)) {
    const cannot = `${file.content_type} cannot carry Content Credentials`;
    checks.push(check("file_c2pa", "not_checked", `${cannot}: kept as received, proven by the sealed manifest alone`));
    checks.push(check("file_names_proof", "not_checked", `${cannot}: the sealed manifest alone names its proof`));
    checks.push(
      file.sha256 === file.signed_sha256
        ? check("file_original", "pass", "kept exactly as received (the sealed manifest's two hashes are equal)")
        : check("file_original", "fail", `${cannot}, yet the sealed manifest's signed copy differs from the original`),
    );
    return checks;
  }
  const c2pa = evidence.c2pa;
  if (c2pa === null) {
    checks.push(check("file_c2pa", "not_checked", "its Content Credentials were not read here"));
    checks.push(check("file_names_proof", "not_checked", "its Content Credentials were not read here"));
  } else {
    checks.push(check("file_c2pa", ...(await c2paCheck(c2pa, roots))));
    if (c2pa.capture === null) {
      checks.push(check("file_names_proof", "fail", "its Content Credentials hold no com.proofseal.capture assertion naming its proof"));
    } else {
      const capture = c2pa.capture;
      const named = (field: string) => (field === "compare_to" ? comparedProofId(capture.compare_to) : capture[field]);
      // c2pa-rs reads an assertion's null as no key at all: absent stands for the manifest's null, and only for it.
      const differing = namedFields(manifest, file).filter(([field, value]) => (named(field) ?? null) !== value);
      checks.push(
        differing.length === 0
          ? check("file_names_proof", "pass", `its signed capture assertion names this proof, step ${file.step_id ?? "?"} position ${file.position ?? "?"}`)
          : check(
              "file_names_proof",
              "fail",
              `its signed capture assertion differs from the sealed manifest: ${differing
                .map(([field, value]) => `${field} ${shown(named(field))} (manifest: ${shown(value)})`)
                .join(", ")}`,
            ),
      );
    }
  }
  checks.push(originalCheck(file, evidence, check));
  return checks;
}

function originalCheck(
  file: ManifestFile,
  evidence: FileEvidence,
  check: (kind: string, result: VerificationCheck["result"], detail: string) => VerificationCheck,
): VerificationCheck {
  if (file.content_type !== "image/jpeg")
    return check("file_original", "not_checked", `not recoverable from the signed copy (${file.content_type}): the sealed manifest keeps its hash`);
  if (file.prior_credentials)
    return check(
      "file_original",
      "not_checked",
      "the file arrived with earlier Content Credentials: removing the C2PA segments does not give back the original, whose hash the sealed manifest keeps",
    );
  if (evidence.original_sha256 === null) return check("file_original", "not_checked", "the JPEG's original was not computed here");
  return evidence.original_sha256 === file.sha256
    ? check("file_original", "pass", "without its C2PA segments it is the original the device sent")
    : check("file_original", "fail", "without its C2PA segments it is not the sealed manifest's original");
}
