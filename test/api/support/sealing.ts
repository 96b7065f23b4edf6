import { createHash } from "node:crypto";
import { env } from "cloudflare:workers";
import { database } from "../../../src/db/client.ts";
import type { SealingDependencies } from "../../../src/sealing/seal-proof.ts";
import type { SealedResult, SealJob, SealResult } from "../../../shared/sealer-protocol.ts";
import { FIXTURE_CHAIN_PEM, OTHER_ROOT_PEM } from "../fixtures/sealed-proof.ts";
import { SEAL_FIXTURE_P7S_BASE64 } from "../fixtures/proof-seal.ts";

/** A signed copy's hash of its own per proof, as a real sealer's (the proof's manifest is inside the copy). */
export const signedHashOf = (proofId: string) =>
  [...proofId]
    .map((char) => char.charCodeAt(0).toString(16))
    .join("")
    .padEnd(64, "0")
    .slice(0, 64);

/**
 * Stores a job's file as the sealer does, its signed copy and a 12-byte WebP thumbnail where the job says, and
 * answers the thumbnail's facts for the sealed answer.
 */
export async function storeSignedCopyAndThumbnail(file: SealJob["files"][number]) {
  const webp = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0x1a, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]);
  await env.FILES.put(new URL(file.thumbnail!.destination.url).pathname.slice(1), webp);
  await env.FILES.put(new URL(file.destination.url).pathname.slice(1), "signed bytes");
  return { content_type: "image/webp" as const, width: 480, height: 360, size: webp.length, sha256: createHash("sha256").update(webp).digest("hex") };
}

/** The SHA-256 of a text in hex, synchronously: the stand-in sealer's answer is built without awaiting. */
function sha256HexOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * What a sealer answers for a job it sealed (the artifacts are placeholders). `manifest_sha256` is the SHA-256 of the
 * manifest it stores, as a real sealer's: the re-hash expects D1's value to be the stored manifest's (docs/adr/0066).
 */
export function sealedAnswer(job: SealJob): SealedResult {
  const manifest = JSON.stringify({ proof_id: job.proof.id });
  return {
    status: "sealed",
    manifest,
    manifest_sha256: sha256HexOf(manifest),
    // A real seal (of another manifest): sealing records the certificate it names.
    manifest_p7s_base64: SEAL_FIXTURE_P7S_BASE64,
    tsr_base64: btoa("tsr-bytes"),
    // Real certificates: sealing records the roots they chain to (trust anchors), so they must parse.
    chain_pem: FIXTURE_CHAIN_PEM,
    c2pa_trust_anchor_pem: OTHER_ROOT_PEM,
    timestamp: { gen_time: "2026-11-22T10:00:00Z", serial: "01", policy: "1.2.3", authority: "Test TSA", qualified: false },
    files: job.files.map((file) => ({
      id: file.id,
      signed_sha256: "b".repeat(64),
      signed_size: 100,
      signed_crc32: 0xcafe0001,
      sniffed_type: "image/jpeg",
      prior_c2pa: false,
      prior_credentials: null,
      decoded: { width: null, height: null, duration_ms: null },
      signals: [],
      fingerprint: null,
      crop_fingerprints: [],
      query_crop_fingerprints: [],
      frame_fingerprints: [],
      thumbnail: null,
    })),
    revocation: [],
  };
}

/** Sealing with storage stand-ins and `seal` in place of the sealer; `published` collects the events handed to delivery. */
export function dependencies(seal: (job: SealJob) => Promise<SealResult>) {
  const published: string[] = [];
  const deps: SealingDependencies = {
    db: database(env.DB),
    objects: env,
    similarityIndexes: env,
    downloadUrl: async (key) => ({ url: `https://storage.test/${key}` }),
    uploadUrl: async (key) => ({ url: `https://storage.test/${key}`, method: "PUT", headers: {} }),
    discardUrl: async (key) => ({ url: `https://storage.test/${key}`, method: "DELETE", headers: {} }),
    seal,
    publishEvents: async (ids) => {
      published.push(...ids);
    },
  };
  return { deps, published };
}
