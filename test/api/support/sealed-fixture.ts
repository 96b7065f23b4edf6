import { env } from "cloudflare:workers";
import { packagedArtifactKey, proofArtifactKeys, signedFileKey } from "../../../src/storage/objects/bucket.ts";
import { storeArtifactHashes } from "../../../src/storage/objects/artifact-hashes.ts";
import { sha256Hex } from "../../../src/lib/crypto.ts";
import { storeSealedRecord } from "../../../src/storage/objects/sealed-records.ts";
import { filesOfProof } from "./proof-files.ts";
import { createOrganization } from "./factories.ts";
import { insertPendingProof } from "./proof-factory.ts";
import {
  V2_CHAIN_PEM,
  V2_FILES,
  V2_MANIFEST,
  V2_MANIFEST_SHA256,
  V2_P7S_BASE64,
  V2_SEAL_CERTIFICATE_SHA256,
  V2_SERVICE_ROOT_PEM,
  V2_SERVICE_ROOT_SHA256,
  V2_TSA_ROOT_SHA256,
  V2_TSR_BASE64,
} from "../fixtures/sealed-proof-v2.ts";

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

/**
 * The genuine version-2 package of fixtures/sealed-proof-v2.ts stored as sealing stores it: its artifacts, its
 * revocation index, its signed files with their rows in D1, its two roots published (GET /v1/public/trust-anchors),
 * then sealed. `keys` are the signed files' keys in the order of V2_FILES.
 */
export async function storedGenuineV2Proof() {
  const bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const stored = await storedFixtureProof({
    manifest: V2_MANIFEST,
    manifestSeal: bytes(V2_P7S_BASE64),
    timestampResponse: bytes(V2_TSR_BASE64),
    timestampChain: V2_CHAIN_PEM,
    c2paTrustAnchor: V2_SERVICE_ROOT_PEM,
  });
  const { proofId, sessionId, run, sealedAt } = stored;
  // Every version-2 proof carries its revocation index (docs/adr/0040); the fixture's certificates name no CRL
  // distribution point, so the sealer would have recorded both signers as not captured, with the reason.
  const notCaptured = (chain: "tsa" | "c2pa", subject: string) => ({
    chain,
    position: 1,
    subject,
    serial: "01",
    status: "unavailable",
    source: null,
    captured_at: sealedAt,
    this_update: null,
    next_update: null,
    reason: "the certificate names no http CRL distribution point",
    certificate: `revocation/${chain}-1.pem`,
    crl: null,
  });
  await env.FILES.put(
    packagedArtifactKey(proofId, run, "revocation/index.json"),
    JSON.stringify([notCaptured("tsa", "Fixture TSA (TEST)"), notCaptured("c2pa", "Fixture C2PA signer (TEST)")]),
  );
  // Each certificate the index names is stored beside it, as sealing stores it (the package carries every one).
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/tsa-1.pem"), V2_CHAIN_PEM.slice(0, V2_CHAIN_PEM.indexOf("-----END CERTIFICATE-----") + 26));
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/c2pa-1.pem"), V2_CHAIN_PEM);
  const keys: string[] = [];
  for (const file of V2_FILES) {
    const key = signedFileKey(proofId, run, file.id, "image/jpeg");
    keys.push(key);
    await env.FILES.put(key, bytes(file.signed_base64));
    await env.DB.prepare(
      "INSERT INTO files (id, session_id, proof_id, step_id, kind, content_type, size, sha256, status, original_key, signed_key, signed_sha256, signed_size, created_at, captured_at) VALUES (?, ?, ?, 'photos', 'photo', 'image/jpeg', 200, ?, 'uploaded', ?, ?, ?, 300, ?, ?)",
    )
      .bind(file.id, sessionId, proofId, file.original_sha256, `captures/${sessionId}/${file.id}`, key, file.signed_sha256, sealedAt, sealedAt)
      .run();
  }
  for (const [sha256, kind] of [
    [V2_TSA_ROOT_SHA256, "timestamp_authority"],
    [V2_SERVICE_ROOT_SHA256, "c2pa"],
  ] as const)
    await env.DB.prepare(
      "INSERT OR IGNORE INTO trust_anchors (sha256, kind, mode, subject, pem, first_sealed_at, last_sealed_at) VALUES (?, ?, 'test', 'Fixture', '', ?, ?)",
    )
      .bind(sha256, kind, sealedAt, sealedAt)
      .run();
  await markFixtureSealed(stored, { manifestSha256: V2_MANIFEST_SHA256, sealCertificateSha256: V2_SEAL_CERTIFICATE_SHA256 });
  return { ...stored, keys };
}

/** The genuine version-2 proof with its files in its record, bound by its SHA-256 in D1: verified until tampered with. */
export async function sealedWithBoundRecord() {
  const { proofId, run } = await storedGenuineV2Proof();
  const sha256 = await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
  await env.DB.batch([
    env.DB.prepare("UPDATE proofs SET sealed_record = 2, sealed_record_sha256 = ? WHERE id = ?").bind(sha256, proofId),
    env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
  ]);
  return { proofId, run };
}
