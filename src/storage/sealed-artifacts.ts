import { REVOCATION_INDEX, RevocationIndexSchema } from "../../shared/revocation-data.ts";
import { EVIDENCE_RECORD_NAME, evidenceRecordKey } from "./evidence-records.ts";
import { packagedArtifactKey, proofArtifactKeys } from "./proof-artifacts.ts";
import { revocationFileNames } from "./proof-revocation.ts";

/** The proof seal (manifest.p7s) beside manifest.json, under the sealing run's prefix (issue 24, docs/adr/0027). */
export const MANIFEST_SEAL_NAME = "manifest.p7s";

/**
 * A sealed proof's small artifacts as they are stored now, by their names in the package (manifest.json,
 * manifest.p7s, proof.tsr, chain.pem, c2pa-trust-anchor.pem, evidence-record.ers, revocation/…): what the
 * verification core reads. A few kB each, read in two rounds (the revocation index names its files); the
 * signed files are not read here (their re-hash is in sealed_object_checks). A missing artifact is absent.
 */
export async function readSealedArtifacts(bucket: R2Bucket, proof: { id: string; sealingRun: string | null }): Promise<Map<string, Uint8Array>> {
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
  const read = async ([name, key]: [string, string]) => {
    const object = await bucket.get(key);
    if (object !== null) entries.set(name, new Uint8Array(await object.arrayBuffer()));
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
