import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { call } from "./support/client.ts";
import { storedZipEntries } from "./support/stored-zip.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { packagedArtifactKey, proofArtifactKeys, signedFileKey } from "../../src/storage/objects/bucket.ts";
import { sealedWithBoundRecord } from "./support/sealed-fixture.ts";
import { V2_FILES } from "./fixtures/sealed-proof-v2.ts";
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

/**
 * Forger session 7's G8: one stored object of the package missing (an insider deleting it, or a storage fault) made
 * the route answer 200 with a cacheable ETag, then break off mid-download. Every object is now found first.
 */
describe("the verification package with a stored object missing (G8)", () => {
  afterEach(() => vi.restoreAllMocks());

  const packagePath = (proofId: string) => `/v1/public/proofs/${proofId}/package`;

  it("answers 409 sealed_object_missing naming its entry, never cached, nor a 304 for a package held from before", async () => {
    const proof = await sealedWithBoundRecord();
    const genuine = await call(packagePath(proof.proofId));
    expect(genuine.status).toBe(200);
    const etag = genuine.headers.get("ETag")!;
    expect(storedZipEntries(new Uint8Array(await genuine.arrayBuffer())).has("revocation/c2pa-1.pem")).toBe(true);
    const signedFile = `files/${V2_FILES[1]!.id}.jpg`;
    const cases: [string, string][] = [
      ["revocation/c2pa-1.pem", packagedArtifactKey(proof.proofId, proof.run, "revocation/c2pa-1.pem")],
      [signedFile, signedFileKey(proof.proofId, proof.run, V2_FILES[1]!.id, "image/jpeg")],
      ["manifest.p7s", packagedArtifactKey(proof.proofId, proof.run, "manifest.p7s")],
    ];
    for (const [entry, key] of cases) {
      const bytes = await (await env.FILES.get(key))!.arrayBuffer();
      await env.FILES.delete(key);
      for (const headers of [{}, { "If-None-Match": etag }] as Record<string, string>[]) {
        const answer = await call(packagePath(proof.proofId), { headers });
        expect([answer.status, answer.headers.get("Content-Type")], entry).toEqual([409, "application/problem+json"]);
        expect(answer.headers.get("Cache-Control"), entry).toBe("no-store");
        expect(answer.headers.get("ETag"), entry).toBeNull();
        const body = (await answer.json()) as { code: string; detail: string };
        expect(body.code, entry).toBe("sealed_object_missing");
        expect(body.detail, entry).toContain(`${entry} of this proof's package is missing`);
        expect(body.detail, entry).not.toContain("proofs/");
      }
      await env.FILES.put(key, bytes);
    }
    // Several missing: the first named, then how many more.
    for (const [, key] of cases) await env.FILES.delete(key);
    const several = (await (await call(packagePath(proof.proofId))).json()) as { detail: string };
    expect(several.detail).toContain("manifest.p7s, revocation/c2pa-1.pem, ");
    expect(several.detail).toContain(" are missing");
  });

  // Forger session 8, H2: the index gone, its files were simply not listed, and the package answered 200 under the
  // whole package's ETag. A proof with a seal was sealed with an index: its absence is one missing entry.
  it("revocation/index.json missing: 409 sealed_object_missing, never a 200 without it", async () => {
    const proof = await sealedWithBoundRecord();
    const etag = (await call(packagePath(proof.proofId))).headers.get("ETag")!;
    await env.FILES.delete(packagedArtifactKey(proof.proofId, proof.run, "revocation/index.json"));
    for (const headers of [{}, { "If-None-Match": etag }] as Record<string, string>[]) {
      const answer = await call(packagePath(proof.proofId), { headers });
      expect(answer.status).toBe(409);
      expect(answer.headers.get("Cache-Control")).toBe("no-store");
      expect(answer.headers.get("ETag")).toBeNull();
      const body = (await answer.json()) as { code: string; detail: string };
      expect(body.code).toBe("sealed_object_missing");
      expect(body.detail).toContain("revocation/index.json of this proof's package is missing");
    }
  });

  it("an object gone after the check breaks the download, never a well-formed ZIP", async () => {
    const proof = await sealedWithBoundRecord();
    const key = signedFileKey(proof.proofId, proof.run, V2_FILES[1]!.id, "image/jpeg");
    const present = (await env.FILES.head(key))!;
    await env.FILES.delete(key);
    // Storage still said it was there when asked, as between a HEAD and the GET that streams it.
    const head = env.FILES.head.bind(env.FILES);
    vi.spyOn(env.FILES, "head").mockImplementation(async (asked) => (asked === key ? present : head(asked)));
    const answer = await call(packagePath(proof.proofId));
    expect(answer.status).toBe(200);
    await expect(answer.arrayBuffer()).rejects.toThrow();
  });
});
