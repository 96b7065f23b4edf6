import { REVOCATION_INDEX, RevocationIndexSchema } from "../../../shared/revocation-data.ts";
import type { SealedResult } from "../../../shared/sealer-protocol.ts";
import type { FileRow } from "../rows.ts";
import {
  artifactHashesKey,
  bucket,
  deleteObjects,
  EVIDENCE_RECORD_NAME,
  evidenceRecordKey,
  MANIFEST_SEAL_NAME,
  type ObjectStore,
  packagedArtifactKey,
  proofArtifactKeys,
  readObjectBytes,
  sealedRecordKey,
  signedFileKey,
  thumbnailKey,
} from "./bucket.ts";
import { readRevocationIndex, revocationFileNames, storeRevocation } from "./revocation.ts";
import { READ_LIMITS, readBoundedBytes } from "./bounded-read.ts";

/**
 * A sealed proof's objects: what a sealing run writes (manifest.json, its seal, the token, the chains, the
 * revocation data; the signed files and thumbnails are written by the sealer through signed URLs), what a
 * run that lost its race leaves to delete, the evidence record the renewal sweep rewrites, and what the
 * verification reads back.
 */

type ProofRun = { id: string; sealingRun: string | null };

/**
 * A sealed proof's small artifacts as they are stored now, by their names in the package (manifest.json,
 * manifest.p7s, proof.tsr, chain.pem, c2pa-trust-anchor.pem, evidence-record.ers, revocation/…): what the
 * verification core reads. A few kB each, read in two rounds (the revocation index names its files); the
 * signed files are not read here (the re-hash sweep's findings stand for them, docs/adr/0066). A missing artifact is absent.
 */
export async function readSealedArtifacts(store: ObjectStore, proof: ProofRun): Promise<Map<string, Uint8Array>> {
  const keys = proofArtifactKeys(proof.id, proof.sealingRun);
  const named: [string, string][] = [
    ["manifest.json", keys.manifest],
    [MANIFEST_SEAL_NAME, packagedArtifactKey(proof.id, proof.sealingRun, MANIFEST_SEAL_NAME)],
    ["proof.tsr", keys.timestampResponse],
    ["chain.pem", keys.timestampChain],
    ["c2pa-trust-anchor.pem", keys.c2paTrustAnchor],
    [EVIDENCE_RECORD_NAME, evidenceRecordKey(proof.id, proof.sealingRun)],
    [REVOCATION_INDEX, packagedArtifactKey(proof.id, proof.sealingRun, REVOCATION_INDEX)],
  ];
  const entries = new Map<string, Uint8Array>();
  // An artifact larger than sealing ever writes is not the sealed one (forger session 7, G11): not read, and absent
  // for the core as a missing one is (the sealed artifact is not in storage), so every check needing it fails.
  const read = async ([name, key]: [string, string]) => {
    const bytes = await readBoundedBytes(store, key, name === "manifest.json" ? READ_LIMITS.manifest : READ_LIMITS.artifact);
    if (bytes !== null && bytes !== "too large") entries.set(name, bytes);
  };
  await Promise.all(named.map(read));
  const index = entries.get(REVOCATION_INDEX);
  if (index !== undefined) {
    const parsed = RevocationIndexSchema.safeParse(safeJson(index));
    // An index that does not parse is left for the core to judge; it names no file to read.
    if (parsed.success) await Promise.all(revocationFileNames(parsed.data).map((name) => read([name, packagedArtifactKey(proof.id, proof.sealingRun, name)])));
  }
  return entries;
}

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

const base64Bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

/** What a sealing run stores from the sealer's answer, under the run's prefix. */
export async function storeSealedArtifacts(store: ObjectStore, proofId: string, run: string, result: SealedResult): Promise<void> {
  const keys = proofArtifactKeys(proofId, run);
  const files = bucket(store);
  await Promise.all([
    files.put(keys.manifest, result.manifest, { httpMetadata: { contentType: "application/json" } }),
    files.put(keys.manifestSeal, base64Bytes(result.manifest_p7s_base64), { httpMetadata: { contentType: "application/pkcs7-signature" } }),
    files.put(keys.timestampResponse, base64Bytes(result.tsr_base64), { httpMetadata: { contentType: "application/timestamp-reply" } }),
    files.put(keys.timestampChain, result.chain_pem, { httpMetadata: { contentType: "application/x-pem-file" } }),
    files.put(keys.c2paTrustAnchor, result.c2pa_trust_anchor_pem, { httpMetadata: { contentType: "application/x-pem-file" } }),
    // Beside the token, with the package's names (docs/adr/0022).
    storeRevocation(store, proofId, run, result.revocation),
  ]);
}

/**
 * What a run wrote besides its revocation data (its artifacts and record, the sealer's signed copies and thumbnails), for a
 * run whose copies are published nowhere.
 */
export async function discardSealingRun(store: ObjectStore, proofId: string, run: string, files: FileRow[]): Promise<void> {
  await deleteObjects(store, [
    ...Object.values(proofArtifactKeys(proofId, run)),
    sealedRecordKey(proofId, run),
    artifactHashesKey(proofId, run),
    ...files.flatMap((file) => [signedFileKey(proofId, run, file.id, file.contentType), thumbnailKey(proofId, run, file.id)]),
  ]);
}

/** The proof's chain.pem and c2pa-trust-anchor.pem as text ("" when absent, or larger than sealing ever writes). */
export async function readPackagedChains(store: ObjectStore, proof: ProofRun): Promise<{ timestampChain: string; c2paTrustAnchor: string }> {
  const keys = proofArtifactKeys(proof.id, proof.sealingRun);
  const text = async (key: string) => {
    const bytes = await readBoundedBytes(store, key, READ_LIMITS.artifact);
    return bytes === null || bytes === "too large" ? "" : new TextDecoder().decode(bytes);
  };
  const [timestampChain, c2paTrustAnchor] = await Promise.all([text(keys.timestampChain), text(keys.c2paTrustAnchor)]);
  return { timestampChain, c2paTrustAnchor };
}

/**
 * The data objects a proof's evidence record covers (docs/adr/0022): manifest.json, proof.tsr and the
 * revocation data captured at sealing (revocation/index.json and the files it lists), read under the names,
 * and from the same index, that the package uses: the offline verifier hashes the package's entries of those names.
 */
export async function evidenceObjects(store: ObjectStore, proof: ProofRun): Promise<Uint8Array[]> {
  const index = await readRevocationIndex(store, proof);
  // The record covers the bytes sealing wrote: an index storage damaged is not renewed as if it were them.
  if (index === "unreadable") throw new Error(`proof ${proof.id}: its revocation/index.json is not an index`);
  const names = ["manifest.json", "proof.tsr", ...(index === null ? [] : [REVOCATION_INDEX, ...revocationFileNames(index)])];
  return Promise.all(
    names.map(async (name) => {
      const key = packagedArtifactKey(proof.id, proof.sealingRun, name);
      const bytes = await readObjectBytes(store, key);
      if (bytes === null) throw new Error(`missing artifact ${key}`);
      return bytes;
    }),
  );
}

/** The metadata the renewal sweep writes with each evidence record (read by one HEAD, without the record). */
interface EvidenceRecordMetadata {
  renewed_at: string;
  archive_timestamps: string;
  authority: string;
}

/** The proof's evidence record's metadata; null before its first archive timestamp. */
export async function evidenceRecordMetadata(store: ObjectStore, proof: ProofRun): Promise<Partial<EvidenceRecordMetadata> | null> {
  const head = await bucket(store).head(evidenceRecordKey(proof.id, proof.sealingRun));
  return head && (head.customMetadata ?? {});
}

/** The evidence record stored under `key` (DER); throws when it is missing. */
export async function readEvidenceRecord(store: ObjectStore, key: string): Promise<Uint8Array> {
  const bytes = await readObjectBytes(store, key);
  if (bytes === null) throw new Error(`evidence record ${key} is missing`);
  return bytes;
}

export async function storeEvidenceRecord(store: ObjectStore, key: string, record: Uint8Array, metadata: EvidenceRecordMetadata): Promise<void> {
  await bucket(store).put(key, record, { httpMetadata: { contentType: "application/octet-stream" }, customMetadata: { ...metadata } });
}
