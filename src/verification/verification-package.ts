import type { DomainContext } from "../domain/context.ts";
import { zipStream, type ZipEntry } from "../lib/zip/zip-stream.ts";
import { unsafeEntryName } from "../lib/zip/entry-name.ts";
import {
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

/**
 * The verification package of a sealed proof, streamed as a ZIP: manifest.json, its seal manifest.p7s (proofs
 * sealed since the seal existed, docs/adr/0027), proof.tsr, chain.pem, the service root (`c2pa-trust-anchor.pem`,
 * for convenience: nothing trusts it unless pinned), the revocation data captured at sealing (`revocation/`, when the proof has it), the
 * signed files and VERIFY.md, everything needed to verify it offline.
 */
export async function verificationPackage({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env">;
  input: { proof: ProofRow; files: FileRow[]; reports?: PackagedReport[] };
}): Promise<ReadableStream<Uint8Array>> {
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
  // Signed files carry the CRC-32 the sealer recorded, so the Worker only passes their bytes along
  // (computing it here would cost ~7 s of CPU per GiB). Small artifacts, and files sealed before the
  // sealer recorded it (NULL), are CRC'd on the way.
  const fromStorage =
    (key: string, crc32: number | null = null) =>
    async () => {
      const object = await openObject(ctx.env, key);
      if (object === null) throw new Error(`missing artifact ${key}`);
      return { stream: object.body, size: object.size, crc32 };
    };
  const entries: ZipEntry[] = [
    { name: "manifest.json", body: fromStorage(keys.manifest) },
    // A proof records the certificate of its seal: one without it was sealed before manifest.p7s existed.
    ...(proof.sealCertificateSha256 === null ? [] : [{ name: MANIFEST_SEAL_ENTRY, body: fromStorage(keys.manifestSeal) }]),
    { name: "proof.tsr", body: fromStorage(keys.timestampResponse) },
    { name: "chain.pem", body: fromStorage(keys.timestampChain) },
    { name: "c2pa-trust-anchor.pem", body: fromStorage(keys.c2paTrustAnchor) },
    ...(indexed === null ? [] : [REVOCATION_INDEX, ...revocationFileNames(indexed)]).map((name) => ({
      name,
      body: fromStorage(packagedArtifactKey(proof.id, proof.sealingRun, name)),
    })),
    ...(evidence === null ? [] : [{ name: EVIDENCE_RECORD_NAME, body: fromStorage(evidenceKey) }]),
    ...files.map((file, index) => ({ name: fileNames[index]!, body: fromStorage(file.signedKey!, file.signedCrc32) })),
    // The sealed PDF reports (docs/adr/0044), once made: the proof's own, and an after's pair report.
    ...reports.map((report) => ({ name: report.name, body: fromStorage(report.key) })),
    {
      name: "VERIFY.md",
      body: async () => verifyMarkdown(proof, files, roots, indexed, evidence !== null, ctx.env.API_BASE_URL, reportNames),
    },
  ];
  return zipStream(entries, new Date(proof.sealedAt ?? proof.createdAt));
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
