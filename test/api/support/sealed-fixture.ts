import { env } from "cloudflare:workers";
import { packagedArtifactKey, proofArtifactKeys } from "../../../src/storage/objects/bucket.ts";
import { storeArtifactHashes } from "../../../src/storage/objects/artifact-hashes.ts";
import { sha256Hex } from "../../../src/lib/crypto.ts";
import { createOrganization } from "./factories.ts";
import { insertPendingProof } from "./proof-factory.ts";

/** What a fixture package's sealing stored in R2 beside its files: manifest.json, manifest.p7s, proof.tsr, chain.pem, c2pa-trust-anchor.pem. */
export interface SealedArtifacts {
  manifest: Uint8Array | string;
  manifestSeal: Uint8Array;
  timestampResponse: Uint8Array;
  timestampChain: Uint8Array | string;
  c2paTrustAnchor: Uint8Array | string;
}

/**
 * A test proof of a fixture package as sealing leaves it, in two steps: `storedFixtureProof` puts the package's
 * artifacts under the run of a new pending proof (no file of its own), sealed a minute ago; the caller stores
 * whatever else sealing writes (file rows, revocation data, reports), then `markFixtureSealed` makes the one
 * UPDATE that says sealed (the triggers enrol the proof then).
 */
export async function storedFixtureProof(artifacts: SealedArtifacts) {
  const org = await createOrganization();
  const { proofId, sessionId } = await insertPendingProof(org.id, "test", 0);
  const run = `run_${proofId}`;
  const keys = proofArtifactKeys(proofId, run);
  const sealedAt = new Date(Date.now() - 60_000).toISOString();
  await env.FILES.put(keys.manifest, artifacts.manifest);
  await env.FILES.put(packagedArtifactKey(proofId, run, "manifest.p7s"), artifacts.manifestSeal);
  await env.FILES.put(keys.timestampResponse, artifacts.timestampResponse);
  await env.FILES.put(keys.timestampChain, artifacts.timestampChain);
  await env.FILES.put(keys.c2paTrustAnchor, artifacts.c2paTrustAnchor);
  // The hashes sealing records of what it stored (docs/adr/0066), so the re-hash compares with them.
  const hashed = async (value: Uint8Array | string) => {
    const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
    return { sha256: await sha256Hex(bytes), size: bytes.length };
  };
  await storeArtifactHashes(env, proofId, run, {
    "manifest.json": await hashed(artifacts.manifest),
    "proof.tsr": await hashed(artifacts.timestampResponse),
    "chain.pem": await hashed(artifacts.timestampChain),
    "manifest.p7s": await hashed(artifacts.manifestSeal),
  });
  return { proofId, sessionId, run, sealedAt };
}

/** The fixture proof sealed by its run at `sealedAt`, over the manifest and by the certificate given. */
export async function markFixtureSealed(
  proof: { proofId: string; run: string; sealedAt: string },
  seal: { manifestSha256: string; sealCertificateSha256: string },
): Promise<void> {
  await env.DB.prepare(
    "UPDATE proofs SET status = 'sealed', sealing_run = ?, manifest_sha256 = ?, seal_certificate_sha256 = ?, timestamp_gen_time = ?, sealed_at = ?, updated_at = ? WHERE id = ?",
  )
    .bind(proof.run, seal.manifestSha256, seal.sealCertificateSha256, proof.sealedAt, proof.sealedAt, proof.sealedAt, proof.proofId)
    .run();
}
