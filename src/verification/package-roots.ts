import { rootFingerprints } from "../../shared/trust-anchors.ts";
import type { ObjectStore } from "../storage/objects/bucket.ts";
import { readPackagedChains } from "../storage/objects/sealed-artifacts.ts";
import type { ProofRow } from "../storage/rows.ts";
import type { PackageRoots } from "./verify-steps.ts";

/**
 * The roots of a sealed proof's two chains (its chain.pem and c2pa-trust-anchor.pem), whose fingerprints
 * VERIFY.md and the public JSON print for a verifier to compare with a source independent of the package.
 */
export async function packageRoots(store: ObjectStore, proof: Pick<ProofRow, "id" | "sealingRun">): Promise<PackageRoots> {
  const chains = await readPackagedChains(store, proof);
  const [tsa, c2pa] = await Promise.all([rootFingerprints(chains.timestampChain), rootFingerprints(chains.c2paTrustAnchor)]);
  return { tsa: tsa[0] ?? null, c2pa: c2pa[0] ?? null };
}
