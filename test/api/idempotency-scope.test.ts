import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";

const sessionsOf = async (reference: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE external_reference = ?").bind(reference).first<{ n: number }>())!.n;

describe("idempotency stores only requests that ran (Stripe)", () => {
  it("does not store a 422 validation failure: the corrected body with the same key creates the session", async () => {
    const org = await createOrganization();
    const key = `fix-${crypto.randomUUID()}`;
    const body = baseSession();
    const invalid = await createSession(org.testKey, { ...body, party: "owner" }, key);
    expect(invalid.body).toMatchObject({ status: 422, code: "validation_failed", field: "/party" });
    const corrected = await createSession(org.testKey, body, key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("Idempotent-Replayed")).toBeNull();
    const replay = await createSession(org.testKey, body, key);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(corrected.body);
    expect(await sessionsOf(body.external_reference)).toBe(1);
    const reused = await createSession(org.testKey, baseSession(), key);
    expect(reused.body).toMatchObject({ status: 422, code: "idempotency_key_reused", field: "/header/Idempotency-Key" });
  });

  it("does not store a malformed JSON body, nor a body in another media type", async () => {
    const org = await createOrganization();
    const key = `media-${crypto.randomUUID()}`;
    const body = baseSession();
    const headers = { "Idempotency-Key": key };
    const malformed = await callJson("/v1/capture-sessions", {
      key: org.testKey,
      rawBody: "{nope",
      headers: { ...headers, "Content-Type": "application/json" },
    });
    expect(malformed.body).toMatchObject({ status: 400, code: "invalid_json" });
    const form = await callJson("/v1/capture-sessions", {
      key: org.testKey,
      rawBody: "external_reference=x&party=provider",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(form.body).toMatchObject({ status: 415, code: "unsupported_media_type" });
    expect((await createSession(org.testKey, body, key)).status).toBe(201);
  });

  it("does not store a 402: after a top-up the same request with the same key creates the session", async () => {
    const org = await createOrganization();
    const key = `topup-${crypto.randomUUID()}`;
    const body = baseSession();
    expect((await createSession(org.liveKey, body, key)).body).toMatchObject({ status: 402, code: "insufficient_balance" });
    await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 1, reason: "top-up" });
    const retried = await createSession(org.liveKey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("does not store a refusal for missing rights: another key of the organization with the right runs it", async () => {
    const org = await createOrganization();
    const reader = await createKey(org.id, { mode: "test", rights: ["read_proof"] });
    const key = `rights-${crypto.randomUUID()}`;
    const body = baseSession();
    expect((await createSession(reader.key, body, key)).body).toMatchObject({ status: 403, code: "insufficient_scope" });
    expect((await createSession(org.testKey, body, key)).status).toBe(201);
  });

  it("stores a refusal made inside the operation (template_not_found) and replays it", async () => {
    const org = await createOrganization();
    const key = `inside-${crypto.randomUUID()}`;
    const body = { ...baseSession(), template_id: "tpl_missing" };
    const first = await createSession(org.testKey, body, key);
    expect(first.body).toMatchObject({ status: 422, code: "template_not_found" });
    const again = await createSession(org.testKey, body, key);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("while a request runs, a concurrent one with another body waits (409) until the first has created its session, then is a reuse", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const key = `race-${crypto.randomUUID()}`;
    const body = baseSession();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createSession(org.testKey, i % 2 === 0 ? body : { ...body, party: "owner" }, key)),
    );
    const created = responses.find((response) => response.status === 201 && response.headers.get("Idempotent-Replayed") === null);
    for (const [i, response] of responses.entries()) {
      expect([201, 409, 422]).toContain(response.status);
      // A reuse only once the session exists (recorded with it in D1, ADR 0046), and only for the other body.
      if (response.body.code === "idempotency_key_reused") expect([created !== undefined, i % 2]).toEqual([true, 1]);
      else if (response.status === 422) expect(response.body.code).toBe("validation_failed");
      if (response.status === 409) expect(response.body.code).toBe("request_in_progress");
    }
    // Whatever the interleaving, the valid body ends up created exactly once.
    const final = await createSession(org.testKey, body, key);
    expect(final.status).toBe(201);
    expect(await sessionsOf(body.external_reference)).toBe(1);
  });
});

describe("idempotency keys are scoped per organization and mode (Stripe: per account)", () => {
  it("shares a key between two keys of one organization and mode, even sent at the same time", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const second = await createKey(org.id, { mode: "test", rate_limit_per_minute: 1000 });
    const key = `shared-${crypto.randomUUID()}`;
    const body = baseSession();
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => createSession(i % 2 === 0 ? org.testKey : second.key, body, key)));
    const created = responses.filter((response) => response.status === 201);
    expect(created.length + responses.filter((response) => response.body.code === "request_in_progress").length).toBe(12);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    expect(await sessionsOf(body.external_reference)).toBe(1);
    const fromSecond = await createSession(second.key, body, key);
    expect(fromSecond.headers.get("Idempotent-Replayed")).toBe("true");
    expect(fromSecond.body.id).toBe(created[0]!.body.id);
  });

  it("keeps the test and live modes of one organization apart", async () => {
    const org = await createOrganization({ balance: 1 });
    const key = `modes-${crypto.randomUUID()}`;
    const body = baseSession();
    const test = await createSession(org.testKey, body, key);
    const live = await createSession(org.liveKey, body, key);
    expect(live.status).toBe(201);
    expect(live.body.mode).toBe("live");
    expect(live.body.id).not.toBe(test.body.id);
  });
});
