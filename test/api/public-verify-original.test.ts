import { describe, expect, it } from "vitest";
import { env, exports } from "cloudflare:workers";
import { database } from "../../src/db/client.ts";
import { buildReportJob, reportSubject } from "../../src/reports/report-job.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { API, call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer, signedHashOf } from "./support/sealing.ts";
import { fileOfProof } from "./support/proof-files.ts";

/** Seals a pending proof, each signed copy with a hash of its own. */
async function sealWithItsOwnCopies(proofId: string) {
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => ({ ...file, signed_sha256: signedHashOf(job.proof.id) }));
    return answer;
  });
  expect(await sealProof(deps, proofId)).toBe("sealed");
}

/** A proof sealed with one photo, whose original bytes are those of `sameBytesAs` when given. */
async function sealedProof(organizationId: string, sameBytesAs?: { sha256: string; key: string }) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1);
  if (sameBytesAs) {
    await env.FILES.put(`copy/${proofId}`, await (await env.FILES.get(sameBytesAs.key))!.arrayBuffer());
    await env.DB.prepare("UPDATE files SET sha256 = ?, original_key = ? WHERE id = ?").bind(sameBytesAs.sha256, `copy/${proofId}`, fileIds[0]).run();
  }
  await sealWithItsOwnCopies(proofId);
  const file = await fileOfProof(proofId, fileIds[0]!);
  return { proofId, sha256: file.sha256, signedSha256: file.signedSha256!, key: file.originalKey };
}

let address = 0;
/** Each look-up from its own address, so that the route's rate limit is not what a test measures. */
const lookUp = (body: Record<string, string>) =>
  callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `203.0.113.${++address % 250}` } });
const named = (body: { data: { proof_id: string; match: string }[] }) => body.data.map((match) => [match.proof_id, match.match]);

describe("POST /v1/public/verify names only the proof a hash belongs to, nor do the public JSON, page and report (docs/adr/0060, R6)", () => {
  it("answers an original's hash only for the proof named, never for another organization's proof of the same bytes", async () => {
    const first = await sealedProof((await createOrganization()).id);
    const other = await sealedProof((await createOrganization()).id, first);
    expect(other.sha256).toBe(first.sha256);

    // The hash both public JSONs publish, asked bare: neither proof is named.
    const published = await callJson(`/v1/public/proofs/${other.proofId}`);
    expect(published.body.files[0].observed.sha256).toBe(first.sha256);
    expect((await lookUp({ sha256: first.sha256 })).body.data).toEqual([]);
    // With the proof it was read from: that proof only, whichever of the two it is.
    expect(named((await lookUp({ sha256: first.sha256, proof_id: other.proofId })).body)).toEqual([[other.proofId, "original"]]);
    expect(named((await lookUp({ sha256: first.sha256, proof_id: first.proofId })).body)).toEqual([[first.proofId, "original"]]);
    // The bytes themselves, with the proof in the query: the same rule.
    const bytes = await (await env.FILES.get(first.key))!.arrayBuffer();
    const byBytes = await exports.default.fetch(
      new Request(`${API}/v1/public/verify?proof_id=${other.proofId}`, {
        method: "POST",
        body: bytes,
        headers: { "Content-Type": "application/octet-stream", "CF-Connecting-IP": "203.0.113.251" },
      }),
    );
    expect(named((await byBytes.json()) as { data: { proof_id: string; match: string }[] })).toEqual([[other.proofId, "original"]]);
    const bare = await exports.default.fetch(
      new Request(`${API}/v1/public/verify`, {
        method: "POST",
        body: bytes,
        headers: { "Content-Type": "application/octet-stream", "CF-Connecting-IP": "203.0.113.252" },
      }),
    );
    expect(((await bare.json()) as { data: unknown[] }).data).toEqual([]);

    // Neither proof's public JSON nor page names the other.
    for (const [proof, hidden] of [
      [other, first],
      [first, other],
    ] as const) {
      const json = await callJson(`/v1/public/proofs/${proof.proofId}`, { headers: { "If-None-Match": '"none"' } });
      expect(JSON.stringify(json.body)).not.toContain(hidden.proofId);
      const page = await call(`/p/${proof.proofId}`);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(hidden.proofId);
    }
  });

  it("answers a signed copy's hash with its own proof only, even where another proof sealed that copy as an original", async () => {
    const first = await sealedProof((await createOrganization()).id);
    // Another organization seals the first proof's signed copy as a photo of its own.
    const { proofId: copyId, fileIds } = await insertPendingProof((await createOrganization()).id, "test", 1);
    await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(first.signedSha256, fileIds[0]).run();
    await sealWithItsOwnCopies(copyId);

    expect(named((await lookUp({ sha256: first.signedSha256 })).body)).toEqual([[first.proofId, "signed"]]);
    expect(named((await lookUp({ sha256: first.signedSha256, proof_id: copyId })).body)).toEqual([
      [first.proofId, "signed"],
      [copyId, "original"],
    ]);
  });

  it("answers within one organization the same way: a later proof of the same bytes does not name the earlier", async () => {
    const organization = await createOrganization();
    const first = await sealedProof(organization.id);
    const again = await sealedProof(organization.id, first);
    // The owner is told which proof (sealed_before); the report's job, laid out from the public facts, is not.
    const owned = await callJson(`/v1/proofs/${again.proofId}`, { key: organization.testKey });
    expect(owned.body.files[0].signals).toContainEqual(expect.objectContaining({ code: "sealed_before", proof_id: first.proofId }));
    const db = database(env.DB);
    const subject = await reportSubject(db, env, again.proofId, "proof");
    const job = await buildReportJob(env, db, subject!, async () => ({ url: "https://pictures.example/signed" }), new Date(Date.now() + 60_000));
    expect(job.proofs[0]!.files[0]!.signals.map((signal) => signal.code)).toContain("sealed_before");
    expect(JSON.stringify(job)).not.toContain(first.proofId);
    expect(named((await lookUp({ sha256: first.sha256, proof_id: again.proofId })).body)).toEqual([[again.proofId, "original"]]);
    expect(named((await lookUp({ sha256: first.sha256, proof_id: "prf_unknown" })).body)).toEqual([]);
  });

  it("refuses a proof_id that is not one, in the body or the query, as a validation problem", async () => {
    const long = "p".repeat(65);
    const inBody = await lookUp({ sha256: "a".repeat(64), proof_id: long });
    expect(inBody.status).toBe(422);
    expect(inBody.body).toMatchObject({ code: "validation_failed", field: "/proof_id" });
    const inQuery = await exports.default.fetch(
      new Request(`${API}/v1/public/verify?proof_id=${long}`, {
        method: "POST",
        body: "bytes",
        headers: { "Content-Type": "application/octet-stream", "CF-Connecting-IP": "203.0.113.253" },
      }),
    );
    expect(inQuery.status).toBe(422);
    expect(await inQuery.json()).toMatchObject({ code: "validation_failed", field: "/query/proof_id" });
  });
});
