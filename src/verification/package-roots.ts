import { rootFingerprints } from "../../shared/trust-anchors.ts";
import { proofArtifactKeys } from "../storage/proof-artifacts.ts";
import type { ProofRow } from "../storage/rows.ts";
import type { PackageRoots } from "./verify-steps.ts";

/**
 * The roots of a sealed proof's two chains (its chain.pem and c2pa-trust-anchor.pem), whose fingerprints
 * VERIFY.md and the public JSON print for a verifier to compare with a source independent of the package.
 */
export async function packageRoots(bucket: R2Bucket, proof: Pick<ProofRow, "id" | "sealingRun">): Promise<PackageRoots> {
  const keys = proofArtifactKeys(proof.id, proof.sealingRun);
  const [chain, anchor] = await Promise.all([bucket.get(keys.timestampChain), bucket.get(keys.c2paTrustAnchor)]);
  const [tsa, c2pa] = await Promise.all([rootFingerprints(chain ? await chain.text() : ""), rootFingerprints(anchor ? await anchor.text() : "")]);
  return { tsa: tsa[0] ?? null, c2pa: c2pa[0] ?? null };
}
