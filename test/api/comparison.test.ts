import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createOrganization } from "./support/factories.ts";
import { createSession } from "./support/sessions.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { callJson } from "./support/client.ts";
import { sessionSnapshot, setSessionSnapshot } from "./support/template-snapshots.ts";

/** A "before" as sealing leaves it: a sealed proof whose session holds a template snapshot. */
async function sealedBefore(organizationId: string, mode: "test" | "live", changes: Record<string, unknown> = {}) {
  const { proofId, sessionId } = await insertPendingProof(organizationId, mode, 1);
  const snapshot = JSON.stringify({ id: null, name: "Built-in photos", steps: [{ id: "photos" }] });
  await setSessionSnapshot(sessionId, snapshot);
  const columns = { status: "sealed", ...changes };
  const sets = Object.keys(columns)
    .map((c) => `${c} = ?`)
    .join(", ");
  await env.DB.prepare(`UPDATE proofs SET ${sets} WHERE id = ?`)
    .bind(...Object.values(columns), proofId)
    .run();
  const proof = await env.DB.prepare("SELECT * FROM proofs WHERE id = ?").bind(proofId).first<any>();
  return { proofId, sessionId, reference: proof.external_reference as string, party: proof.party as string };
}

describe("compare_to preconditions", () => {
  it('creates an "after" of a sealed "before" with the same reference and party, inheriting its template', async () => {
    const org = await createOrganization();
    const before = await sealedBefore(org.id, "test");
    const after = await createSession(org.testKey, { external_reference: before.reference, party: before.party, compare_to: before.proofId });
    expect(after.status).toBe(201);
    expect(after.body.compare_to).toBe(before.proofId);
    expect(JSON.parse(await sessionSnapshot(after.body.id)).name).toBe("Built-in photos");
  });

  it("refuses a missing proof, or one of another mode or organization: compare_to_not_found", async () => {
    const org = await createOrganization();
    const stranger = await createOrganization();
    const live = await sealedBefore(org.id, "live");
    const foreign = await sealedBefore(stranger.id, "test");
    for (const [id, reference] of [
      ["prf_missing", "r"],
      [live.proofId, live.reference],
      [foreign.proofId, foreign.reference],
    ] as const) {
      const response = await createSession(org.testKey, { external_reference: reference, party: "provider", compare_to: id });
      expect(response.body).toMatchObject({ status: 422, code: "compare_to_not_found", field: "/compare_to" });
    }
  });

  it("refuses a before that is not sealed: compare_to_not_sealed", async () => {
    const org = await createOrganization();
    const pending = await sealedBefore(org.id, "test", { status: "pending" });
    const response = await createSession(org.testKey, { external_reference: pending.reference, party: "provider", compare_to: pending.proofId });
    expect(response.body).toMatchObject({ status: 422, code: "compare_to_not_sealed" });
  });

  it("refuses another reference or party: compare_to_mismatch", async () => {
    const org = await createOrganization();
    const before = await sealedBefore(org.id, "test");
    const otherReference = await createSession(org.testKey, { external_reference: "other-ref", party: "provider", compare_to: before.proofId });
    expect(otherReference.body).toMatchObject({ status: 422, code: "compare_to_mismatch" });
    const otherParty = await createSession(org.testKey, { external_reference: before.reference, party: "recipient", compare_to: before.proofId });
    expect(otherParty.body).toMatchObject({ status: 422, code: "compare_to_mismatch" });
  });

  it("refuses a before that is itself an after: compare_to_is_after", async () => {
    const org = await createOrganization();
    const first = await sealedBefore(org.id, "test");
    const second = await sealedBefore(org.id, "test", { compare_to: first.proofId });
    const response = await createSession(org.testKey, { external_reference: second.reference, party: "provider", compare_to: second.proofId });
    expect(response.body).toMatchObject({ status: 422, code: "compare_to_is_after" });
  });

  it("refuses a before already taken by a completed after: 409 compare_to_already_used", async () => {
    const org = await createOrganization();
    const before = await sealedBefore(org.id, "test");
    const taker = await sealedBefore(org.id, "test");
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(taker.proofId, before.proofId).run();
    const response = await createSession(org.testKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
    expect(response.body).toMatchObject({ status: 409, code: "compare_to_already_used" });
  });

  it("refuses stage/category selecting another active template: compare_template_mismatch", async () => {
    const org = await createOrganization();
    const before = await sealedBefore(org.id, "test");
    await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "Checkout", stage: "checkout", welcome: { title: "Hi" }, steps: [{ id: "front", label: "Front", instruction: "Front" }] },
    });
    const response = await createSession(org.testKey, {
      external_reference: before.reference,
      party: "provider",
      compare_to: before.proofId,
      stage: "checkout",
    });
    expect(response.body).toMatchObject({ status: 422, code: "compare_template_mismatch" });
    const noTemplate = await createSession(org.testKey, {
      external_reference: before.reference,
      party: "provider",
      compare_to: before.proofId,
      stage: "return",
    });
    expect(noTemplate.status).toBe(201);
  });
});
