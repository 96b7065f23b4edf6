import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { buildManifest } from "../../sealer/src/manifest.ts";
import { proofArtifactKeys } from "../../src/storage/objects/bucket.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { storedZipBytes } from "./support/stored-zip.ts";
import { SEAL_FIXTURE_CERTIFICATE_SHA256, SEAL_FIXTURE_NOT_AFTER, SEAL_FIXTURE_P7S_BASE64, SEAL_FIXTURE_SUBJECT } from "./fixtures/proof-seal.ts";

const p7sBytes = Uint8Array.from(atob(SEAL_FIXTURE_P7S_BASE64), (c) => c.charCodeAt(0));

/**
 * A sealer stand-in that writes placeholder signed copies where the job says and builds the real manifest
 * (sealer/src/manifest.ts) from the job the Worker sent.
 */
function sealerBuildingManifests(jobs: SealJob[]) {
  return dependencies(async (job) => {
    jobs.push(job);
    for (const file of job.files) await env.FILES.put(new URL(file.destination.url).pathname.slice(1), `signed ${file.id}`);
    const answer = sealedAnswer(job);
    const manifest = buildManifest(job, new Map(answer.files.map((file) => [file.id, { signed_sha256: file.signed_sha256, prior_credentials: false }])));
    return { ...answer, manifest: manifest.json, manifest_sha256: manifest.sha256 };
  });
}

describe("the seal over the whole proof (manifest.p7s) and manifest version 2", () => {
  it("an after's job and manifest name the before by id and manifest hash, each file's position within its step, and the package carries manifest.p7s", async () => {
    const org = await createOrganization();
    const jobs: SealJob[] = [];
    const { deps } = sealerBuildingManifests(jobs);
    const before = await insertPendingProof(org.id, "test", 1);
    expect(await sealProof(deps, before.proofId)).toBe("sealed");
    const beforeManifestSha256 = (await env.DB.prepare("SELECT manifest_sha256 FROM proofs WHERE id = ?")
      .bind(before.proofId)
      .first<string>("manifest_sha256"))!;

    const after = await insertPendingProof(org.id, "test", 3);
    await env.DB.prepare("UPDATE proofs SET compare_to = ? WHERE id = ?").bind(before.proofId, after.proofId).run();
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after.proofId, before.proofId).run();
    // Capture order: a shot of "photos", one of "meter", then a second of "photos".
    const steps = ["photos", "meter", "photos"];
    for (const [index, fileId] of after.fileIds.entries()) {
      await env.DB.prepare("UPDATE files SET step_id = ?, created_at = ? WHERE id = ?").bind(steps[index], `2026-11-26T10:00:0${index}.000Z`, fileId).run();
    }
    expect(await sealProof(deps, after.proofId)).toBe("sealed");

    const job = jobs[1]!;
    expect(job.proof).toMatchObject({ organization_id: org.id, compare_to: before.proofId, compare_to_manifest_sha256: beforeManifestSha256 });
    expect(jobs[0]!.proof).toMatchObject({ organization_id: org.id, compare_to: null, compare_to_manifest_sha256: null });
    expect(job.files.map((file) => [file.id, file.step_id, file.position])).toEqual([
      [after.fileIds[0], "photos", 1],
      [after.fileIds[1], "meter", 1],
      [after.fileIds[2], "photos", 2],
    ]);

    const response = await call(`/v1/public/proofs/${after.proofId}/package`);
    expect(response.status).toBe(200);
    const entries = storedZipBytes(new Uint8Array(await response.arrayBuffer()));
    expect([...entries.keys()].slice(0, 2)).toEqual(["manifest.json", "manifest.p7s"]);
    expect(entries.get("manifest.p7s")).toEqual(p7sBytes);
    const manifest = JSON.parse(new TextDecoder().decode(entries.get("manifest.json")));
    expect(manifest).toMatchObject({ version: 2, organization_id: org.id, compare_to: { proof_id: before.proofId, manifest_sha256: beforeManifestSha256 } });
    expect(manifest.files.map((file: { step_id: string; position: number }) => [file.step_id, file.position])).toEqual([
      ["photos", 1],
      ["meter", 1],
      ["photos", 2],
    ]);
    const stored = await env.FILES.get(proofArtifactKeys(after.proofId, await sealingRun(after.proofId)).manifestSeal);
    expect(stored?.httpMetadata?.contentType).toBe("application/pkcs7-signature");
    await stored?.arrayBuffer();
  });

  it("a sealed proof names its seal's certificate, and GET /v1/public/trust-anchors lists that certificate with its validity", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    const { deps } = sealerBuildingManifests([]);
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const seal = { certificate_subject: SEAL_FIXTURE_SUBJECT, certificate_sha256: SEAL_FIXTURE_CERTIFICATE_SHA256 };
    const publicProof = await callJson(`/v1/public/proofs/${proofId}`);
    expect(publicProof.body.seal).toEqual(seal);
    const proof = await callJson(`/v1/proofs/${proofId}`, { key: org.testKey });
    expect(proof.body.seal).toEqual(seal);
    const anchors = await callJson("/v1/public/trust-anchors");
    expect(anchors.body.seal_certificates).toContainEqual(
      expect.objectContaining({
        mode: "test",
        status: "current",
        sha256: SEAL_FIXTURE_CERTIFICATE_SHA256,
        subject: SEAL_FIXTURE_SUBJECT,
        not_after: SEAL_FIXTURE_NOT_AFTER,
        issuer: expect.stringContaining("Test C2PA Root"),
      }),
    );
  });

  it("a proof sealed before the seal existed (manifest version 1) has no manifest.p7s in its package and no seal", async () => {
    const org = await createOrganization();
    const { deps } = sealerBuildingManifests([]);
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    expect(await sealProof(deps, proofId)).toBe("sealed");
    // As migration 0017 leaves a proof sealed before it.
    await env.DB.prepare("UPDATE proofs SET seal_certificate_sha256 = NULL, seal_certificate_subject = NULL WHERE id = ?").bind(proofId).run();
    const entries = storedZipBytes(new Uint8Array(await (await call(`/v1/public/proofs/${proofId}/package`)).arrayBuffer()));
    expect(entries.has("manifest.json")).toBe(true);
    expect(entries.has("manifest.p7s")).toBe(false);
    expect((await callJson(`/v1/public/proofs/${proofId}`)).body.seal).toBeNull();
  });

  it("a sealer answer whose seal carries no certificate is not published: the run is discarded and retried", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    const { deps } = dependencies(async (job) => ({ ...sealedAnswer(job), manifest_p7s_base64: btoa("not a CMS") }));
    await expect(sealProof(deps, proofId)).rejects.toThrow();
    const proof = await env.DB.prepare("SELECT status, seal_certificate_sha256 FROM proofs WHERE id = ?").bind(proofId).first();
    expect(proof).toEqual({ status: "pending", seal_certificate_sha256: null });
  });
});

async function sealingRun(proofId: string): Promise<string | null> {
  return env.DB.prepare("SELECT sealing_run FROM proofs WHERE id = ?").bind(proofId).first<string>("sealing_run");
}
