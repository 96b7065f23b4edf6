import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

const AI_GENERATED = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
const reported = { method: "camera", device_time: "2001-01-01T00:00:00.000Z", width: 4000, height: 3000, geolocation: { latitude: 48.8, longitude: 2.3, accuracy_m: 0 } };

/** A sealer answering with the provenance and signals a real one reads from an AI-labelled gallery file. */
function sealerWithFindings(job: SealJob) {
  const answer = sealedAnswer(job);
  // A signed copy's hash of its own per proof, so that one proof's copy can be uploaded again in another.
  const signedSha256 = [...job.proof.id].map((char) => char.charCodeAt(0).toString(16)).join("").padEnd(64, "0").slice(0, 64);
  answer.files = answer.files.map((file) => ({
    ...file,
    signed_sha256: signedSha256,
    prior_c2pa: true,
    prior_credentials: { claim_generator: "Generator 1.0", digital_source_types: [AI_GENERATED], validation_state: "Valid" as const, signer: "Some AI, Example" },
    decoded: { width: 320, height: 240, duration_ms: null },
    signals: [
      { code: "prior_content_credentials" as const, detail: "The file came with C2PA Content Credentials of its own." },
      { code: "dimensions_mismatch" as const, detail: "Reported 4000×3000, decoded 320×240." },
    ],
  }));
  return answer;
}

async function sealedProof(organizationId: string, options: { sameBytesAs?: string } = {}) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1);
  await env.DB.prepare("UPDATE files SET capture_context = ? WHERE id = ?").bind(JSON.stringify({ ...reported, clock_offset_ms: 820_000_000_000 }), fileIds[0]).run();
  if (options.sameBytesAs) await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(options.sameBytesAs, fileIds[0]).run();
  const { deps } = dependencies(async (job) => sealerWithFindings(job));
  expect(await sealProof(deps, proofId)).toBe("sealed");
  const file = await env.DB.prepare("SELECT sha256, signed_sha256 FROM files WHERE id = ?").bind(fileIds[0]).first<{ sha256: string; signed_sha256: string }>();
  return { proofId, sha256: file!.sha256, signedSha256: file!.signed_sha256 };
}

describe("what a seal claims, in the API and the public JSON", () => {
  it("keeps what the service observed apart from what the device reported, with earlier Content Credentials and signals", async () => {
    const org = await createOrganization();
    const { proofId, sha256 } = await sealedProof(org.id);
    const { status, body } = await callJson(`/v1/proofs/${proofId}`, { key: org.testKey });
    expect(status).toBe(200);
    const file = body.files[0];
    expect(file.observed).toEqual({ sha256, size: 64, content_type: "image/jpeg", received_at: file.captured_at, clock_offset_ms: 820_000_000_000, decoded: { width: 320, height: 240, duration_ms: null } });
    expect(file.reported_by_device).toEqual({ ...reported, duration_ms: null });
    expect(file.earlier_content_credentials).toEqual({ claim_generator: "Generator 1.0", digital_source_types: [AI_GENERATED], validation_state: "Valid", signer: "Some AI, Example" });
    expect(file.signals.map((s: { code: string }) => s.code)).toEqual(["prior_content_credentials", "dimensions_mismatch"]);
    const published = await callJson(`/v1/public/proofs/${proofId}`);
    expect(published.body.files[0].observed).toEqual(file.observed);
    expect(published.body.files[0].reported_by_device).toEqual(file.reported_by_device);
    expect(published.body.files[0].earlier_content_credentials).toEqual(file.earlier_content_credentials);
  });

  it("flags bytes already sealed in another proof of the organization: the API names it, the public JSON does not", async () => {
    const org = await createOrganization();
    const first = await sealedProof(org.id);
    const again = await sealedProof(org.id, { sameBytesAs: first.sha256 });
    const { body } = await callJson(`/v1/proofs/${again.proofId}`, { key: org.testKey });
    expect(body.files[0].signals).toContainEqual({ code: "sealed_before", detail: `The same bytes were sealed before, in proof ${first.proofId}.`, proof_id: first.proofId });
    const published = await callJson(`/v1/public/proofs/${again.proofId}`);
    const signal = published.body.files[0].signals.find((s: { code: string }) => s.code === "sealed_before");
    expect(signal).toEqual({ code: "sealed_before", detail: "The same bytes were sealed before, in another proof." });
    expect(JSON.stringify(published.body)).not.toContain(first.proofId);
  });

  it("flags a signed copy uploaded again, and never looks into another organization's proofs", async () => {
    const org = await createOrganization();
    const first = await sealedProof(org.id);
    const copy = await sealedProof(org.id, { sameBytesAs: first.signedSha256 });
    const { body } = await callJson(`/v1/proofs/${copy.proofId}`, { key: org.testKey });
    expect(body.files[0].signals).toContainEqual(expect.objectContaining({ code: "sealed_before", proof_id: first.proofId }));
    const other = await createOrganization();
    const elsewhere = await sealedProof(other.id, { sameBytesAs: first.sha256 });
    const theirs = await callJson(`/v1/proofs/${elsewhere.proofId}`, { key: other.testKey });
    expect(theirs.body.files[0].signals.map((s: { code: string }) => s.code)).not.toContain("sealed_before");
  });
});
