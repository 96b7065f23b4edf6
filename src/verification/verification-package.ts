import type { DomainContext } from "../domain/context.ts";
import { zipStream, type ZipEntry } from "../lib/zip/zip-stream.ts";
import { unsafeEntryName } from "../lib/zip/entry-name.ts";
import { ApiError } from "../errors/api-error.ts";
import {
  absentObjects,
  EVIDENCE_RECORD_NAME,
  evidenceRecordKey,
  fileExtension,
  objectHead,
  openObject,
  packagedArtifactKey,
  proofArtifactKeys,
} from "../storage/objects/bucket.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import { verifyMarkdown } from "./verify-md.ts";
import { packageRoots } from "./package-roots.ts";
import { readRevocationIndex, revocationFileNames } from "../storage/objects/revocation.ts";
import { REVOCATION_INDEX } from "../../shared/revocation-data.ts";

/** A PDF report in the package: `report.pdf` or `pair-report.pdf`, and where it is stored. */
export interface PackagedReport {
  name: "report.pdf" | "pair-report.pdf";
  key: string;
}

/** The proof seal's name in the package, beside manifest.json. */
export const MANIFEST_SEAL_ENTRY = "manifest.p7s";

/** An entry of the package carrying a stored object's bytes, and its CRC-32 when the sealer recorded it. */
interface StoredEntry {
  name: string;
  key: string;
  crc32: number | null;
}

/**
 * The verification package of a sealed proof, as a ZIP to stream: manifest.json, its seal manifest.p7s (proofs
 * sealed since the seal existed, docs/adr/0027), proof.tsr, chain.pem, the service root (`c2pa-trust-anchor.pem`,
 * for convenience: nothing trusts it unless pinned), the revocation data captured at sealing (`revocation/`, when the proof has it), the
 * signed files and VERIFY.md, everything needed to verify it offline. Every stored object it carries is found in
 * storage first (one HEAD each), else `409 sealed_object_missing` naming its entry (forger session 7, G8): never a
 * 200 breaking off mid-download, nor a 304 confirming a package that can no longer be served whole. An object gone
 * after that check aborts the stream, which the client sees as a failed download, never a well-formed ZIP.
 */
export async function verificationPackage({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env">;
  input: { proof: ProofRow; files: FileRow[]; reports?: PackagedReport[] };
}): Promise<() => ReadableStream<Uint8Array>> {
  const { proof, files, reports = [] } = input;
  // The index names the revocation files, and VERIFY.md gives a command for each.
  const keys = proofArtifactKeys(proof.id, proof.sealingRun);
  const evidenceKey = evidenceRecordKey(proof.id, proof.sealingRun);
  // The evidence record exists once the renewal sweep gave the proof its first archive timestamp (docs/adr/0022).
  const [roots, revocation, evidence] = await Promise.all([
    packageRoots(ctx.env, proof),
    readRevocationIndex(ctx.env, proof),
    objectHead(ctx.env, evidenceKey),
  ]);
  const reportNames = reports.map((report) => report.name);
  const fileNames = files.map((file) => `files/${file.id}.${fileExtension(file.contentType)}`);
  // An index that is not one (damaged in storage, forger session 7 G10), or one naming a file under a name no
  // extractor may write (G16), is packaged as stored and names no file: the package's verifier, and VERIFY.md's step 7,
  // find the revocation data failing, as the service's own verdict does.
  const refused = revocation === "unreadable" || (revocation !== null && !revocationNamesSafe(proof.id, revocationFileNames(revocation), fileNames));
  const indexed = refused ? [] : revocation;
  // Sealing has written revocation/index.json beside every manifest.p7s (docs/adr/0022 came before 0027): for a proof
  // with a seal it is an entry even when storage has lost it, so its absence is a 409, never a package without it
  // under the whole package's ETag (forger session 8, H2).
  const indexEntries = indexed !== null ? [REVOCATION_INDEX, ...revocationFileNames(indexed)] : proof.sealCertificateSha256 !== null ? [REVOCATION_INDEX] : [];
  const artifact = (name: string, key: string): StoredEntry => ({ name, key, crc32: null });
  // Signed files carry the CRC-32 the sealer recorded, so the Worker only passes their bytes along
  // (computing it here would cost ~7 s of CPU per GiB). Small artifacts, and files sealed before the
  // sealer recorded it (NULL), are CRC'd on the way.
  const stored: StoredEntry[] = [
    artifact("manifest.json", keys.manifest),
    // A proof records the certificate of its seal: one without it was sealed before manifest.p7s existed.
    ...(proof.sealCertificateSha256 === null ? [] : [artifact(MANIFEST_SEAL_ENTRY, keys.manifestSeal)]),
    artifact("proof.tsr", keys.timestampResponse),
    artifact("chain.pem", keys.timestampChain),
    artifact("c2pa-trust-anchor.pem", keys.c2paTrustAnchor),
    ...indexEntries.map((name) => artifact(name, packagedArtifactKey(proof.id, proof.sealingRun, name))),
    ...(evidence === null ? [] : [artifact(EVIDENCE_RECORD_NAME, evidenceKey)]),
    ...files.map((file, index) => ({ name: fileNames[index]!, key: file.signedKey!, crc32: file.signedCrc32 })),
    // The sealed PDF reports (docs/adr/0044), once made: the proof's own, and an after's pair report.
    ...reports.map((report) => artifact(report.name, report.key)),
  ];
  const absent = await absentObjects(ctx.env, [...new Set(stored.map((entry) => entry.key))]);
  const missing = stored.filter((entry) => absent.has(entry.key)).map((entry) => entry.name);
  if (missing.length > 0)
    throw new ApiError("sealed_object_missing", {
      detail: `${missingEntries(missing)} of this proof's package ${missing.length > 1 ? "are" : "is"} missing from the service's storage: the package cannot be served whole.`,
      headers: { "Cache-Control": "no-store" },
    });
  const fromStorage = (entry: StoredEntry) => async () => {
    const object = await openObject(ctx.env, entry.key);
    if (object === null) throw new Error(`${entry.name} left storage after the package was checked`);
    return { stream: object.body, size: object.size, crc32: entry.crc32 };
  };
  const verify: ZipEntry = {
    name: "VERIFY.md",
    body: async () => verifyMarkdown(proof, files, roots, indexed, evidence !== null, ctx.env.API_BASE_URL, reportNames),
  };
  const entries = [...stored.map((entry): ZipEntry => ({ name: entry.name, body: fromStorage(entry) })), verify];
  return () => zipStream(entries, new Date(proof.sealedAt ?? proof.createdAt));
}

/** The entries missing, by their names in the package (never a storage key): the first three, then how many more. */
function missingEntries(names: string[]): string {
  const named = names.slice(0, 3).join(", ");
  const more = names.length - 3;
  return more > 0 ? `${named} and ${more} more ${more === 1 ? "entry" : "entries"}` : named;
}

/** The names the service gives its own entries, which a name read from storage never takes. */
const FIXED_NAMES = [
  "manifest.json",
  MANIFEST_SEAL_ENTRY,
  "proof.tsr",
  "chain.pem",
  "c2pa-trust-anchor.pem",
  REVOCATION_INDEX,
  EVIDENCE_RECORD_NAME,
  "report.pdf",
  "pair-report.pdf",
  "VERIFY.md",
];

/**
 * Whether every revocation file name the stored index gives may be an entry of the package: the index's schema
 * already admits only the names sealing writes, so a refusal here means that check was bypassed, and the operator is
 * told (the alert line, as `sealed_object_altered` is).
 */
function revocationNamesSafe(proofId: string, names: string[], fileNames: string[]): boolean {
  const taken = new Set([...FIXED_NAMES, ...fileNames]);
  for (const name of names) {
    const problem = unsafeEntryName(name, taken);
    if (problem !== null) {
      console.error(JSON.stringify({ level: "error", alert: "package_entry_refused", proof_id: proofId, entry: name, problem }));
      return false;
    }
    taken.add(name);
  }
  return true;
}
