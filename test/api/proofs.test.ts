import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { database } from "../../src/db/client.ts";
import { proofListQuery } from "../../src/storage/proofs-read.ts";

async function proofWith(organizationId: string, mode: "test" | "live", changes: Record<string, unknown> = {}) {
  const { proofId } = await insertPendingProof(organizationId, mode, 1);
  const sets = Object.keys(changes).map((c) => `${c} = ?`);
  if (sets.length)
    await env.DB.prepare(`UPDATE proofs SET ${sets.join(", ")} WHERE id = ?`)
      .bind(...Object.values(changes), proofId)
      .run();
  return proofId;
}

describe("GET /v1/proofs/{id}", () => {
  it("returns the full shape, and 404 proof_not_found for another mode or organization", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const id = await proofWith(org.id, "test");
    const read = await callJson(`/v1/proofs/${id}`, { key: org.testKey });
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(
      [
        "category",
        "compare_to",
        "compared_by",
        "created_at",
        "external_reference",
        "failure",
        "files",
        "files_record",
        "id",
        "location_reference",
        "manifest_sha256",
        "mode",
        "package_url",
        "party",
        "seal",
        "sealed_at",
        "session_id",
        "stage",
        "status",
        "template_id",
        "timestamp",
        "verification_url",
      ].sort(),
    );
    expect(read.body.files[0]).toMatchObject({ step_id: "photos", kind: "photo", signed_sha256: null });
    expect(read.body.verification_url).toBe(`http://localhost:8787/p/${id}`);
    const missing = await callJson("/v1/proofs/prf_missing", { key: org.testKey });
    for (const response of [await callJson(`/v1/proofs/${id}`, { key: org.liveKey }), await callJson(`/v1/proofs/${id}`, { key: other.testKey })]) {
      expect(response.status).toBe(404);
      expect({ ...response.body, request_id: undefined }).toEqual({ ...missing.body, request_id: undefined });
    }
  });
});

describe("GET /v1/proofs", () => {
  it("filters by reference, party, stage, status, dates and linked=false", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const sealedBefore = await proofWith(org.id, "test", { status: "sealed", external_reference: "car-1", party: "recipient", stage: "checkout" });
    const taken = await proofWith(org.id, "test", { status: "sealed", external_reference: "car-1" });
    const after = await proofWith(org.id, "test", { status: "sealed", compare_to: taken, external_reference: "car-1" });
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after, taken).run();
    const pending = await proofWith(org.id, "test", { external_reference: "car-2" });
    const ids = async (query: string) => (await callJson(`/v1/proofs${query}`, { key: org.testKey })).body.data.map((p: any) => p.id);
    expect(await ids("?linked=false")).toEqual([sealedBefore]);
    expect((await ids("?external_reference=car-1")).sort()).toEqual([sealedBefore, taken, after].sort());
    expect(await ids("?party=recipient")).toEqual([sealedBefore]);
    expect(await ids("?stage=checkout")).toEqual([sealedBefore]);
    expect(await ids("?status=pending")).toEqual([pending]);
    expect(await ids(`?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect((await ids(`?created_before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).length).toBe(4);
    expect(await ids("")).not.toContain(undefined);
    expect((await callJson("/v1/proofs?status=lost", { key: org.testKey })).body).toMatchObject({ code: "validation_failed", field: "/query/status" });
    expect((await callJson("/v1/proofs", { key: org.liveKey })).body.data).toEqual([]);
  });

  it("pages newest first without a duplicate or a gap while proofs keep arriving", async () => {
    const org = await createOrganization({ rateLimit: 5000 });
    const existing: string[] = [];
    for (let i = 0; i < 12; i++) existing.push(await proofWith(org.id, "test"));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const [page]: any[] = await Promise.all([
        callJson(`/v1/proofs?limit=5${cursor ? `&cursor=${cursor}` : ""}`, { key: org.testKey }),
        proofWith(org.id, "test"),
        proofWith(org.id, "test"),
      ]);
      seen.push(...page.body.data.map((p: any) => p.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    const before = seen.filter((id) => existing.includes(id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(before.sort()).toEqual([...existing].sort());
  });

  it("is served by an index, so a page costs the same at the millionth proof", async () => {
    const query = proofListQuery(database(env.DB), "org_x", "test", { external_reference: "car-1" }, 50, undefined).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<any>();
    const details = plan.results.map((row) => row.detail as string).join("\n");
    expect(details).toMatch(/USING INDEX proofs_(reference|list)/);
    expect(details).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
    const plain = proofListQuery(database(env.DB), "org_x", "test", {}, 50, undefined).toSQL();
    const plainPlan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${plain.sql}`)
      .bind(...plain.params)
      .all<any>();
    expect(plainPlan.results.map((row) => row.detail).join("\n")).toMatch(/USING INDEX proofs_list/);
  });
});
