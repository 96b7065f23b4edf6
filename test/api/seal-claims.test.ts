import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { call } from "./support/client.ts";
import { database } from "../../src/db/client.ts";
import { findProofById, proofFiles } from "../../src/storage/proofs-read.ts";
import { verifyMarkdown } from "../../src/verification/verify-md.ts";
import { CLAIM_TEXTS } from "../../src/verification/claims.ts";
import { fileOfProof } from "./support/proof-files.ts";

const AI_GENERATED = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
const reported = {
  method: "camera",
  device_time: "2001-01-01T00:00:00.000Z",
  width: 4000,
  height: 3000,
  geolocation: { latitude: 48.8, longitude: 2.3, accuracy_m: 0 },
};

/** A sealer answering with the provenance and signals a real one reads from an AI-labelled gallery file. */
function sealerWithFindings(job: SealJob) {
  const answer = sealedAnswer(job);
  // A signed copy's hash of its own per proof, so that one proof's copy can be uploaded again in another.
  const signedSha256 = [...job.proof.id]
    .map((char) => char.charCodeAt(0).toString(16))
    .join("")
    .padEnd(64, "0")
    .slice(0, 64);
  answer.files = answer.files.map((file) => ({
    ...file,
    signed_sha256: signedSha256,
    prior_c2pa: true,
    prior_credentials: {
      claim_generator: "Generator 1.0",
      digital_source_types: [AI_GENERATED],
      validation_state: "Valid" as const,
      signer: "Some AI, Example",
    },
    decoded: { width: 320, height: 240, duration_ms: null },
    signals: [
      { code: "prior_content_credentials" as const, detail: "The file came with C2PA Content Credentials of its own." },
      { code: "dimensions_mismatch" as const, detail: "Reported 4000×3000, decoded 320×240." },
    ],
  }));
  return answer;
}

async function sealedProof(organizationId: string, options: { sameBytesAs?: string; mode?: "test" | "live" } = {}) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, options.mode ?? "test", 1);
  await env.DB.prepare("UPDATE files SET capture_context = ? WHERE id = ?")
    .bind(JSON.stringify({ ...reported, clock_offset_ms: 820_000_000_000, capture_page_version: "abc1234" }), fileIds[0])
    .run();
  if (options.sameBytesAs) await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(options.sameBytesAs, fileIds[0]).run();
  const { deps } = dependencies(async (job) => sealerWithFindings(job));
  expect(await sealProof(deps, proofId)).toBe("sealed");
  const file = await fileOfProof(proofId, fileIds[0]!);
  return { proofId, sha256: file.sha256, signedSha256: file.signedSha256! };
}

describe("what a seal claims, in the API and the public JSON", () => {
  it("keeps what the service observed apart from what the device reported, with earlier Content Credentials and signals", async () => {
    const org = await createOrganization();
    const { proofId, sha256 } = await sealedProof(org.id);
    const { status, body } = await callJson(`/v1/proofs/${proofId}`, { key: org.testKey });
    expect(status).toBe(200);
    const file = body.files[0];
    expect(file.observed).toEqual({
      sha256,
      size: 64,
      content_type: "image/jpeg",
      received_at: file.captured_at,
      clock_offset_ms: 820_000_000_000,
      capture_page_version: "abc1234",
      decoded: { width: 320, height: 240, duration_ms: null },
    });
    expect(file.reported_by_device).toEqual({ ...reported, duration_ms: null });
    expect(file.earlier_content_credentials).toEqual({
      claim_generator: "Generator 1.0",
      digital_source_types: [AI_GENERATED],
      validation_state: "Valid",
      signer: "Some AI, Example",
    });
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
    expect(body.files[0].signals).toContainEqual({
      code: "sealed_before",
      detail: `The same bytes were sealed before, in proof ${first.proofId}.`,
      proof_id: first.proofId,
    });
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

  it("says what is proven, what the device only reported and what is not proven: one list of codes in the JSON, the page and VERIFY.md", async () => {
    const org = await createOrganization({ balance: 5 });
    const { proofId } = await sealedProof(org.id, { mode: "live" });
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    const codes = (list: { code: string }[]) => list.map((claim) => claim.code);
    expect(codes(body.claims.proven)).toEqual(["bytes_unchanged", "existed_by_timestamp", "received_at"]);
    expect(codes(body.claims.reported_by_device)).toEqual(["capture_method", "device_time", "device_location"]);
    expect(codes(body.claims.not_proven)).toEqual(["scene_content", "camera_genuine", "location_exact"]);
    expect(body.claims.not_proven[1]).toEqual({ code: "camera_genuine", en: CLAIM_TEXTS.camera_genuine.en, fr: CLAIM_TEXTS.camera_genuine.fr });
    expect(CLAIM_TEXTS.camera_genuine.en).toMatch(/web page cannot attest the camera/);

    const page = await (await call(`/p/${proofId}?lang=de`, { headers: { Accept: "text/html" } })).text();
    for (const code of [...codes(body.claims.proven), ...codes(body.claims.reported_by_device), ...codes(body.claims.not_proven)]) {
      expect(page).toContain(CLAIM_TEXTS[code as keyof typeof CLAIM_TEXTS].de.replaceAll("'", "&#39;"));
    }
    const fileId = body.files[0].id;
    expect(page).toContain(`data-testid="observed-${fileId}"`);
    expect(page).toMatch(new RegExp(`data-testid="reported-${fileId}"><dt>Vom Gerät angegeben \\(nicht geprüft\\)`));
    expect(page).toContain('data-code="dimensions_mismatch"');
    expect(page).toContain(`data-testid="earlier-${fileId}"`);

    const db = database(env.DB);
    const proof = (await findProofById(db, proofId))!;
    const markdown = verifyMarkdown(proof, (await proofFiles(db, env, [proof])).get(proofId) ?? []);
    for (const code of codes(body.claims.not_proven)) {
      expect(markdown).toContain(`\`${code}\`: ${CLAIM_TEXTS[code as keyof typeof CLAIM_TEXTS].en}`);
      expect(markdown).toContain(`\`${code}\`: ${CLAIM_TEXTS[code as keyof typeof CLAIM_TEXTS].fr}`);
    }
    expect(markdown).toContain(
      `- \`${fileId}\`: \`prior_content_credentials\`, \`dimensions_mismatch\` earlier Content Credentials: Generator 1.0 (${AI_GENERATED}, Valid)`,
    );
  });

  it("a test proof proves nothing: no proven claim, and the first thing not proven says it is a test", async () => {
    const org = await createOrganization();
    const { proofId } = await sealedProof(org.id);
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(body.claims.proven).toEqual([]);
    expect(body.claims.not_proven[0].code).toBe("test_no_legal_value");
  });

  it("has each claim's text in every page language", () => {
    for (const texts of Object.values(CLAIM_TEXTS)) for (const lang of ["en", "fr", "es", "de"] as const) expect(texts[lang].length).toBeGreaterThan(10);
  });

  it("says each claim in plain words: no field name (gen_time, received_at) in a sentence a reader of the page meets", () => {
    for (const [code, texts] of Object.entries(CLAIM_TEXTS)) {
      for (const lang of ["en", "fr", "es", "de"] as const) expect(texts[lang], `${code} ${lang}`).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    }
  });
});
