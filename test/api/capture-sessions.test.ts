import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { admin, callJson, CAPTURE } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { sessionSnapshot } from "./support/template-snapshots.ts";
import { apiAccountName, RETENTION_MS } from "../../src/durable/api-account.ts";

describe("POST /v1/capture-sessions", () => {
  it("creates a single-use link on the capture host, valid 30 minutes", async () => {
    const org = await createOrganization();
    const before = Date.now();
    const { status, body } = await createSession(org.testKey, baseSession());
    expect(status).toBe(201);
    expect(Object.keys(body).sort()).toEqual(["capture_url", "compare_to", "expires_at", "id", "mode"]);
    expect(body).toMatchObject({ mode: "test", compare_to: null });
    expect(body.id).toMatch(/^cps_/);
    const token = body.capture_url.slice(`${CAPTURE}/c/`.length);
    expect(body.capture_url.startsWith(`${CAPTURE}/c/`)).toBe(true);
    expect(token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url
    const expires = Date.parse(body.expires_at) - before;
    expect(expires).toBeGreaterThan(29.9 * 60_000);
    expect(expires).toBeLessThan(30.1 * 60_000);
    const row = await env.DB.prepare("SELECT * FROM capture_sessions WHERE id = ?").bind(body.id).first<any>();
    expect(row.token_hash).toBe(await sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.parse(await sessionSnapshot(body.id)).steps[0].id).toBe("photos");
  });

  it("reads the session back, in its own mode only", async () => {
    const org = await createOrganization();
    const created = await createSession(org.testKey, { ...baseSession(), stage: "checkin", location_reference: "depot-7" });
    const read = await callJson(`/v1/capture-sessions/${created.body.id}`, { key: org.testKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, status: "open", stage: "checkin", location_reference: "depot-7", locale: "en", proof_id: null });
    const other = await callJson(`/v1/capture-sessions/${created.body.id}`, { key: org.liveKey });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe("capture_session_not_found");
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["missing external_reference", { party: "provider" }, "/external_reference"],
    ["external_reference with a space", { external_reference: "a b", party: "provider" }, "/external_reference"],
    ["external_reference too long", { external_reference: "a".repeat(201), party: "provider" }, "/external_reference"],
    ["unknown party", { external_reference: "r1", party: "owner" }, "/party"],
    ["bad stage", { external_reference: "r1", party: "provider", stage: "Check In" }, "/stage"],
    ["bad category", { external_reference: "r1", party: "provider", category: "x".repeat(65) }, "/category"],
    ["bad locale", { external_reference: "r1", party: "provider", locale: "english!" }, "/locale"],
    ["template_id too long", { external_reference: "r1", party: "provider", template_id: "t".repeat(81) }, "/template_id"],
    ["compare_to too long", { external_reference: "r1", party: "provider", compare_to: "p".repeat(81) }, "/compare_to"],
    ["location_reference too long", { external_reference: "r1", party: "provider", location_reference: "l".repeat(101) }, "/location_reference"],
    ["return_url not a URL", { external_reference: "r1", party: "provider", return_url: "nope" }, "/return_url"],
    ["unknown field", { external_reference: "r1", party: "provider", colour: "red" }, "/colour"],
    ["template_id with compare_to", { external_reference: "r1", party: "provider", template_id: "tpl_x", compare_to: "prf_x" }, "/template_id"],
  ];
  for (const [name, body, field] of invalid) {
    it(`refuses ${name} with 422 validation_failed naming ${field}`, async () => {
      const org = await createOrganization();
      const response = await createSession(org.testKey, body);
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ code: "validation_failed", field });
    });
  }

  it("requires a well-formed Idempotency-Key", async () => {
    const org = await createOrganization();
    for (const headers of [{}, { "Idempotency-Key": "short" }, { "Idempotency-Key": "has spaces in it" }] as Record<string, string>[]) {
      const response = await callJson("/v1/capture-sessions", { key: org.testKey, body: baseSession(), headers });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ code: "validation_failed", field: "/header/Idempotency-Key" });
    }
  });

  it("applies the return_url rules", async () => {
    const org = await createOrganization({ balance: 5 });
    const settings = await callJson("/v1/settings", {
      key: org.testKey,
      method: "PATCH",
      body: { allowed_return_origins: ["https://shop.example", "http://localhost:3000"] },
    });
    expect(settings.body.allowed_return_origins).toEqual(["https://shop.example", "http://localhost:3000"]);
    expect((await createSession(org.testKey, { ...baseSession(), return_url: "https://shop.example/done?x=1" })).status).toBe(201);
    const other = await createSession(org.testKey, { ...baseSession(), return_url: "https://evil.example/done" });
    expect(other.body).toMatchObject({ status: 422, code: "return_url_not_allowed", field: "/return_url" });
    const plain = await createSession(org.testKey, { ...baseSession(), return_url: "http://shop.example/done" });
    expect(plain.body).toMatchObject({ code: "validation_failed", field: "/return_url" });
    expect((await createSession(org.testKey, { ...baseSession(), return_url: "http://localhost:3000/back" })).status).toBe(201);
    const liveLocal = await createSession(org.liveKey, { ...baseSession(), return_url: "http://localhost:3000/back" });
    expect(liveLocal.body).toMatchObject({ code: "validation_failed", field: "/return_url" });
  });

  it("uses the default theme's locale when none is given", async () => {
    const org = await createOrganization();
    await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Brand", primary_color: "#112233", locale: "fr" } });
    const created = await createSession(org.testKey, baseSession());
    const read = await callJson(`/v1/capture-sessions/${created.body.id}`, { key: org.testKey });
    expect(read.body.locale).toBe("fr");
  });
});

describe("templates at session creation", () => {
  const template = (extra: Record<string, unknown> = {}) => ({
    name: "Car check-in",
    welcome: { title: "Hello" },
    steps: [{ id: "front", label: "Front", instruction: "Shoot the front" }],
    ...extra,
  });

  it("refuses a missing, archived or other-mode template with 422 template_not_found", async () => {
    const org = await createOrganization();
    const live = await callJson("/v1/capture-templates", { key: org.liveKey, body: template() });
    const archived = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    await callJson(`/v1/capture-templates/${archived.body.id}`, { key: org.testKey, method: "DELETE" });
    for (const id of ["tpl_missing", live.body.id, archived.body.id]) {
      const response = await createSession(org.testKey, { ...baseSession(), template_id: id });
      expect(response.body).toMatchObject({ status: 422, code: "template_not_found", field: "/template_id" });
    }
  });

  it("copies the named template, or the one matching stage and category most specifically", async () => {
    const org = await createOrganization();
    const stageOnly = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ name: "stage", stage: "checkin" }) });
    const both = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ name: "both", stage: "checkin", category: "car" }) });
    await callJson("/v1/capture-templates", { key: org.testKey, body: template({ name: "unnamed only" }) });
    const snapshotOf = async (id: string) => JSON.parse(await sessionSnapshot(id));
    const a = await createSession(org.testKey, { ...baseSession(), stage: "checkin", category: "car" });
    expect((await snapshotOf(a.body.id)).id).toBe(both.body.id);
    const b = await createSession(org.testKey, { ...baseSession(), stage: "checkin", category: "van" });
    expect((await snapshotOf(b.body.id)).id).toBe(stageOnly.body.id);
    const c = await createSession(org.testKey, { ...baseSession() });
    expect((await snapshotOf(c.body.id)).id).toBeNull();
    const named = await createSession(org.testKey, { ...baseSession(), template_id: stageOnly.body.id, stage: "other" });
    expect((await snapshotOf(named.body.id)).id).toBe(stageOnly.body.id);
  });

  it("stores a template's snapshot again when the retention sweep deleted it after this isolate stored it", async () => {
    const org = await createOrganization();
    const own = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ name: "swept" }) });
    const first = await createSession(org.testKey, { ...baseSession(), template_id: own.body.id });
    const snapshot = await sessionSnapshot(first.body.id);
    // What the sweep does once no session uses the snapshot any more.
    await env.DB.batch([
      env.DB.prepare("DELETE FROM capture_sessions WHERE id = ?").bind(first.body.id),
      env.DB.prepare("DELETE FROM template_snapshots WHERE sha256 = ?").bind(await sha256Hex(snapshot)),
    ]);
    const second = await createSession(org.testKey, { ...baseSession(), template_id: own.body.id });
    expect(second.status).toBe(201);
    expect(await sessionSnapshot(second.body.id)).toBe(snapshot);
    expect((await callJson(`/v1/capture-sessions/${second.body.id}`, { key: org.testKey })).status).toBe(200);
  });
});

describe("balance", () => {
  it("refuses a live creation with 402 when nothing is available, never a test one", async () => {
    const org = await createOrganization();
    const live = await createSession(org.liveKey, baseSession());
    expect(live.body).toMatchObject({ status: 402, code: "insufficient_balance" });
    expect((await createSession(org.testKey, baseSession())).status).toBe(201);
  });

  for (let round = 1; round <= 3; round++) {
    it(`gives exactly three 201 and seven 402 for ten concurrent live creations against a balance of 3 (round ${round})`, async () => {
      const org = await createOrganization({ balance: 3, rateLimit: 1000 });
      const responses = await Promise.all(Array.from({ length: 10 }, () => createSession(org.liveKey, baseSession())));
      expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
      expect(responses.filter((r) => r.status === 402)).toHaveLength(7);
      const balance = await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" });
      expect(balance.body).toEqual({ balance: 3, available: 0 });
    });
  }
});

describe("idempotency", () => {
  it("replays the original answer for the same key and body, without a second session", async () => {
    const org = await createOrganization();
    const body = baseSession();
    const first = await createSession(org.testKey, body, "key-replay-0001");
    const second = await createSession(org.testKey, { party: body.party, external_reference: body.external_reference }, "key-replay-0001");
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE external_reference = ?").bind(body.external_reference).first<any>();
    expect(count.n).toBe(1);
  });

  it("refuses the same key with another body with 422 idempotency_key_reused", async () => {
    const org = await createOrganization();
    await createSession(org.testKey, baseSession(), "key-reused-0001");
    const response = await createSession(org.testKey, baseSession(), "key-reused-0001");
    expect(response.body).toMatchObject({ status: 422, code: "idempotency_key_reused" });
  });

  it("forgets a key when its 24-hour record expires", async () => {
    const org = await createOrganization();
    const created = Date.now();
    await createSession(org.testKey, baseSession(), "key-expiring-0001");
    // The account's records live in one Durable Object whose alarm rings when the oldest one's 24 hours are over.
    const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(apiAccountName({ organizationId: org.id, mode: "test" })));
    vi.spyOn(Date, "now").mockReturnValue(created + RETENTION_MS + 1_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM records").one().n)).toBe(0);
    vi.restoreAllMocks();
    // The attempt recorded with the session in D1 (ADR 0046) is past its 24 hours too.
    await env.DB.prepare(
      "UPDATE capture_session_creations SET created_at = '2000-01-01T00:00:00.000Z' WHERE session_id IN (SELECT id FROM capture_sessions WHERE organization_id = ?)",
    )
      .bind(org.id)
      .run();
    const again = await createSession(org.testKey, baseSession(), "key-expiring-0001");
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("keeps keys apart per organization", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const body = baseSession();
    const a = await createSession(org.testKey, body, "shared-key-0001");
    const b = await createSession(other.testKey, body, "shared-key-0001");
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  for (let round = 1; round <= 3; round++) {
    it(`creates exactly one session from 25 concurrent identical calls (round ${round})`, async () => {
      const org = await createOrganization({ rateLimit: 1000 });
      const body = baseSession();
      const key = `concurrent-${crypto.randomUUID()}`;
      const responses = await Promise.all(Array.from({ length: 25 }, () => createSession(org.testKey, body, key)));
      const created = responses.filter((r) => r.status === 201);
      const inProgress = responses.filter((r) => r.status === 409);
      expect(created.length + inProgress.length).toBe(25);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of inProgress) {
        expect(r.body.code).toBe("request_in_progress");
        expect(r.headers.get("Retry-After")).toBe("1");
      }
      const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE external_reference = ?").bind(body.external_reference).first<any>();
      expect(count.n).toBe(1);
    });
  }
});
