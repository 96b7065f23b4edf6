import { sha256Hex } from "./digest.ts";
import type { SealedManifest } from "./sealed-manifest.ts";
import type { VerificationCheck } from "./types.ts";

/** Every name the service writes in a package outside files/ and revocation/ (which files_listed and revocation_sealed judge). */
const PACKAGE_NAMES = new Set([
  "manifest.json",
  "manifest.p7s",
  "proof.tsr",
  "chain.pem",
  "c2pa-trust-anchor.pem",
  "evidence-record.ers",
  "report.pdf",
  "pair-report.pdf",
  "VERIFY.md",
]);

/**
 * What VERIFY.md's own commands write in the unzipped folder (src/verification/verify-steps.ts), where
 * proof-verify may run after them: named in the check's detail, never read by any check.
 */
export const VERIFY_OUTPUTS: ReadonlySet<string> = new Set([
  "published-roots.json",
  "tsa-root.pem",
  "service-root.pem",
  "c2pa-anchors.pem",
  "seal-certificate.pem",
  "report-nssdb/cert9.db",
  "report-nssdb/key4.db",
  "report-nssdb/pkcs11.txt",
]);

/** step 6's recovered originals, one per file the sealed manifest lists, with the SHA-256 each must have. */
const originals = (manifest: SealedManifest) => new Map(manifest.files.map((file) => [`original-${file.id}.jpg`, file.sha256]));

/**
 * package_contents (docs/adr/0056): the package holds nothing the service did not put there. A name outside its
 * layout (a `Report-final.pdf` beside the sealed report.pdf, a `manifest (1).json`) fails, named: a reader
 * would otherwise take a forged document riding on a genuine package's VERIFIED for part of it. Files under
 * files/ and revocation/ are judged against what the seal lists by files_listed and revocation_sealed.
 */
export async function packageContents(manifest: SealedManifest, entries: ReadonlyMap<string, Uint8Array>): Promise<VerificationCheck> {
  const recovered = originals(manifest);
  const names = [...entries.keys()].filter((name) => !name.endsWith("/") && !name.startsWith("files/") && !name.startsWith("revocation/"));
  const written = names.filter((name) => VERIFY_OUTPUTS.has(name) || recovered.has(name));
  const extra = names.filter((name) => !PACKAGE_NAMES.has(name) && !written.includes(name));
  // A file named as a sealed file's original must be it: a reader takes it for what the device sent.
  for (const name of written.filter((name) => recovered.has(name))) {
    if ((await sha256Hex(entries.get(name)!)) !== recovered.get(name))
      return {
        name: "package_contents",
        result: "fail",
        detail: `${name} is named as the original of a sealed file, but its SHA-256 is not the one the sealed manifest gives (remove it, or recover it again with VERIFY.md step 6)`,
      };
  }
  if (extra.length > 0)
    return {
      name: "package_contents",
      result: "fail",
      detail: `not part of the package the service made, yet in it: ${extra.join(", ")} (nothing vouches for such a file; remove it, or take the package again from the service)`,
    };
  return {
    name: "package_contents",
    result: "pass",
    detail: `only what the service puts in a package${written.length > 0 ? `; written here by VERIFY.md's commands, not read: ${written.join(", ")}` : ""}`,
  };
}
