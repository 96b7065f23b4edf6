import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call } from "./support/client.ts";
import { storedZipEntries } from "./support/stored-zip.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { proofArtifactKeys } from "../../src/storage/objects/bucket.ts";
import { crc32 } from "../../shared/crc32.ts";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_MANIFEST_SHA256, FIXTURE_TSR_BASE64 } from "./fixtures/sealed-proof.ts";

/** A sealed proof of two signed files: one with the CRC-32 its sealer recorded, one sealed before CRCs were recorded. */
async function sealedProof(recordedCrc: number) {
  const org = await createOrganization();
  const { proofId, fileIds } = await insertPendingProof(org.id, "test", 2);
  const run = "run_package";
  const keys = proofArtifactKeys(proofId, run);
  await env.FILES.put(keys.manifest, FIXTURE_MANIFEST);
  await env.FILES.put(
    keys.timestampResponse,
    Uint8Array.from(atob(FIXTURE_TSR_BASE64), (c) => c.charCodeAt(0)),
  );
  await env.FILES.put(keys.timestampChain, FIXTURE_CHAIN_PEM);
  await env.FILES.put(keys.c2paTrustAnchor, FIXTURE_CHAIN_PEM);
  const signed = fileIds.map((id) => ({ id, bytes: crypto.getRandomValues(new Uint8Array(3000)), key: `proofs/${proofId}/runs/${run}/files/${id}.jpg` }));
  for (const [index, file] of signed.entries()) {
    await env.FILES.put(file.key, file.bytes);
    await env.DB.prepare("UPDATE files SET signed_key = ?, signed_sha256 = ?, signed_size = ?, signed_crc32 = ? WHERE id = ?")
      .bind(file.key, "c".repeat(64), file.bytes.length, index === 0 ? recordedCrc : null, file.id)
      .run();
  }
  await env.DB.prepare("UPDATE proofs SET status = 'sealed', sealing_run = ?, manifest_sha256 = ?, timestamp_gen_time = ?, sealed_at = ? WHERE id = ?")
    .bind(run, FIXTURE_MANIFEST_SHA256, new Date().toISOString(), new Date().toISOString(), proofId)
    .run();
  return { proofId, signed };
}

describe("the verification package", () => {
  it("takes each signed file's CRC-32 from the sealer's record instead of computing it, and computes it only for files sealed without one", async () => {
    // A recorded value that is not the bytes' CRC: only a writer that trusts the record puts it in the archive.
    const recorded = 0x12345678;
    const { proofId, signed } = await sealedProof(recorded);
    const response = await call(`/v1/public/proofs/${proofId}/package`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/zip");
    const entries = storedZipEntries(new Uint8Array(await response.arrayBuffer()));
    const [withRecord, legacy] = signed;
    expect(entries.get(`files/${withRecord!.id}.jpg`)).toMatchObject({ crc: recorded, size: 3000 });
    expect(entries.get(`files/${legacy!.id}.jpg`)).toMatchObject({ crc: crc32(legacy!.bytes), size: 3000 });
    expect(entries.get("manifest.json")).toMatchObject({ crc: crc32(new TextEncoder().encode(FIXTURE_MANIFEST)), size: FIXTURE_MANIFEST.length });
    expect([...entries.keys()]).toEqual(expect.arrayContaining(["proof.tsr", "chain.pem", "c2pa-trust-anchor.pem", "VERIFY.md"]));
  });
});
