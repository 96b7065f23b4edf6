import { REVOCATION_INDEX } from "../../shared/revocation-data.ts";
import { packagedArtifactKey } from "../storage/proof-artifacts.ts";
import { readRevocationIndex, revocationFileNames } from "../storage/proof-revocation.ts";

/**
 * The data objects a proof's evidence record covers (docs/adr/0022): manifest.json, proof.tsr and the
 * revocation data captured at sealing (revocation/index.json and the files it lists), read from storage
 * under the names, and from the same index, that the package uses (src/proofs/verification-package.ts):
 * the offline verifier hashes the package's entries of those names.
 */
export async function evidenceObjects(bucket: R2Bucket, proof: { id: string; sealingRun: string | null }): Promise<Uint8Array[]> {
  const index = await readRevocationIndex(bucket, proof);
  const names = ["manifest.json", "proof.tsr", ...(index === null ? [] : [REVOCATION_INDEX, ...revocationFileNames(index)])];
  return Promise.all(
    names.map(async (name) => {
      const key = packagedArtifactKey(proof.id, proof.sealingRun, name);
      const object = await bucket.get(key);
      if (object === null) throw new Error(`missing artifact ${key}`);
      return new Uint8Array(await object.arrayBuffer());
    }),
  );
}
