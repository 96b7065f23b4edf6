import type { Env } from "../env.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { proofArtifactKeys } from "../storage/proof-artifacts.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import { checkTimestamp } from "../../shared/timestamp-check.ts";

export interface Verification {
  status: "valid" | "invalid" | "pending" | "failed";
  test_mode: boolean;
  checks: { name: string; result: "pass" | "fail"; detail?: string }[];
}

const verificationKey = (proofId: string) => `proofs/${proofId}/verification.json`;

async function bytesOf(bucket: R2Bucket, key: string): Promise<Uint8Array | null> {
  const object = await bucket.get(key);
  return object === null ? null : new Uint8Array(await object.arrayBuffer());
}

/**
 * Verifies a sealed proof again from what is stored, as a stranger would: the manifest hashes to
 * `manifest_sha256`, the authority's token signs it and chains to the published roots at its time, the
 * manifest lists every file with both hashes, and every signed file is there. A sealed proof never
 * changes, so the first result is kept beside its artifacts.
 */
export async function proofVerification(env: Env, proof: ProofRow, files: FileRow[]): Promise<Verification> {
  const test_mode = proof.mode === "test";
  if (proof.status !== "sealed") return { status: proof.status, test_mode, checks: [] };
  const cached = await env.FILES.get(verificationKey(proof.id));
  if (cached !== null) return (await cached.json()) as Verification;
  const keys = proofArtifactKeys(proof.id, proof.sealingRun);
  const [manifest, tsr, chain] = await Promise.all([
    bytesOf(env.FILES, keys.manifest),
    bytesOf(env.FILES, keys.timestampResponse),
    env.FILES.get(keys.timestampChain),
  ]);
  const checks: Verification["checks"] = [];
  const check = (name: string, ok: boolean, detail?: string) => checks.push({ name, result: ok ? "pass" : "fail", ...(ok || !detail ? {} : { detail }) });
  check("manifest_hash", manifest !== null && (await sha256Hex(manifest)) === proof.manifestSha256, "manifest.json does not hash to manifest_sha256");
  if (manifest !== null && tsr !== null && chain !== null) {
    const stamp = await checkTimestamp(tsr, manifest, await chain.text());
    check("timestamp_signature", stamp.granted && stamp.signatureValid, "the token's signature does not verify");
    check(
      "timestamp_signer",
      stamp.signerCertifiedForTimestamping && stamp.signerCertificateBound,
      "the token's signer is not a timestamping certificate, or the token does not name it",
    );
    check("timestamp_imprint", stamp.imprintMatches, "the token does not cover this manifest");
    check("timestamp_chain", stamp.chainTrusted, "the token's signer does not chain to the published roots");
  } else {
    check("timestamp_present", false, "proof.tsr or chain.pem is missing");
  }
  let listed: { id: string; sha256: string; signed_sha256: string }[] = [];
  try {
    const parsed = manifest === null ? null : (JSON.parse(new TextDecoder().decode(manifest)) as { files?: unknown });
    listed = Array.isArray(parsed?.files) ? (parsed.files as typeof listed) : [];
  } catch {
    listed = [];
  }
  const everyFileListed = files.every((file) =>
    listed.some((entry) => entry.id === file.id && entry.sha256 === file.sha256 && entry.signed_sha256 === file.signedSha256),
  );
  check("files_in_manifest", everyFileListed && listed.length === files.length, "the manifest and the proof's files disagree");
  const heads = await Promise.all(files.map((file) => (file.signedKey ? env.FILES.head(file.signedKey) : Promise.resolve(null))));
  check(
    "signed_files_stored",
    heads.every((head, i) => head !== null && head.size === files[i]!.signedSize),
    "a signed file is missing",
  );
  const verification: Verification = { status: checks.every((c) => c.result === "pass") ? "valid" : "invalid", test_mode, checks };
  await env.FILES.put(verificationKey(proof.id), JSON.stringify(verification), { httpMetadata: { contentType: "application/json" } });
  return verification;
}
