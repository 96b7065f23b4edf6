import { describe, expect, it } from "vitest";
import { env, exports } from "cloudflare:workers";
import { admin, API, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { checkWebhookUrl } from "../../src/webhooks/url-rules.ts";
import { takeRateLimit } from "../../src/durable/rate-limit-client.ts";

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

/** A body of `total` bytes produced on demand, counting how much of it the Worker actually pulled. */
function countedBody(total: number) {
  const chunk = new Uint8Array(1024 * 1024).fill(0x61);
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulled >= total) return controller.close();
      counter.pulled += chunk.byteLength;
      controller.enqueue(chunk.slice());
    },
  });
  return { stream, counter };
}

describe("a JSON route called with a body that is not JSON", () => {
  const notJson: [string, Record<string, string>, string][] = [
    ["form-encoded (curl -d)", { "Content-Type": "application/x-www-form-urlencoded" }, "external_reference=r1&party=provider"],
    ["text/plain", { "Content-Type": "text/plain" }, '{"external_reference":"r1","party":"provider"}'],
    ["without a content type", {}, '{"external_reference":"r1","party":"provider"}'],
  ];
  for (const [name, headers, rawBody] of notJson) {
    it(`gets 415 unsupported_media_type, ${name}, on every JSON route and creates nothing`, async () => {
      const org = await createOrganization({ rateLimit: 1000 });
      const routes: [string, string, string][] = [
        ["POST", "/v1/capture-sessions", org.testKey],
        ["POST", "/v1/webhook-endpoints", org.testKey],
        ["POST", "/v1/capture-templates", org.testKey],
        ["PATCH", "/v1/settings", org.testKey],
        ["POST", "/admin/v1/organizations", ADMIN_TOKEN],
      ];
      for (const [method, path, key] of routes) {
        const response = await callJson(path, { method, key, rawBody, headers: { ...headers, "Idempotency-Key": crypto.randomUUID() } });
        expect(response.status, `${method} ${path}`).toBe(415);
        expect(response.headers.get("Content-Type")).toBe("application/problem+json");
        expect(response.body).toMatchObject({ status: 415, code: "unsupported_media_type", type: `${API}/errors/unsupported-media-type` });
      }
      const sessions = await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE organization_id = ?").bind(org.id).first<{ n: number }>();
      expect(sessions?.n).toBe(0);
    });
  }

  it("says 415 before anything else about the request, even without an Idempotency-Key (curl -d as typed)", async () => {
    const org = await createOrganization();
    const response = await callJson("/v1/capture-sessions", {
      key: org.testKey,
      rawBody: "external_reference=r1&party=provider",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ code: "unsupported_media_type" });
  });

  it("titles it in French too", async () => {
    const org = await createOrganization();
    const response = await callJson("/v1/webhook-endpoints", {
      key: org.testKey,
      rawBody: "url=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "fr" },
    });
    expect(response.body).toMatchObject({ code: "unsupported_media_type", title: "Type de média non pris en charge" });
  });

  it("refuses a 60 MB text/plain body on the idempotent route without reading it", async () => {
    const org = await createOrganization();
    const { stream, counter } = countedBody(60 * 1024 * 1024);
    const response = await exports.default.fetch(
      new Request(`${API}/v1/capture-sessions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${org.testKey}`, "Content-Type": "text/plain", "Idempotency-Key": crypto.randomUUID() },
        body: stream,
      }),
    );
    expect(response.status).toBe(415);
    expect(((await response.json()) as { code: string }).code).toBe("unsupported_media_type");
    expect(counter.pulled).toBeLessThan(16 * 1024 * 1024);
  });

  it("reads a body without a content type no further than the JSON limit: 413 payload_too_large", async () => {
    const org = await createOrganization();
    const { stream, counter } = countedBody(60 * 1024 * 1024);
    const response = await exports.default.fetch(
      new Request(`${API}/v1/capture-sessions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${org.testKey}`, "Idempotency-Key": crypto.randomUUID() },
        body: stream,
      }),
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe("payload_too_large");
    expect(counter.pulled).toBeLessThan(24 * 1024 * 1024);
  });

  it("declares 415 in the OpenAPI document for JSON-only bodies, not for byte uploads", async () => {
    const document = (await callJson("/openapi.json")).body;
    expect(Object.keys(document.paths["/v1/capture-sessions"].post.responses)).toContain("415");
    expect(Object.keys(document.paths["/v1/capture-themes/{id}/logo"].put.responses)).not.toContain("415");
  });
});

describe("authenticated 404 and 405", () => {
  it("carry the RateLimit-* headers and count against the key's limit", async () => {
    const org = await createOrganization({ rateLimit: 3 });
    const unknown = await callJson("/v1/nothing-here", { key: org.testKey });
    expect(unknown).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(unknown.headers.get("RateLimit-Limit")).toBe("3");
    expect(unknown.headers.get("RateLimit-Remaining")).toBe("2");
    expect(unknown.headers.get("RateLimit-Reset")).toMatch(/^\d+$/);
    const wrongMethod = await callJson("/v1/proofs", { key: org.testKey, method: "DELETE" });
    expect(wrongMethod).toMatchObject({ status: 405, body: { code: "method_not_allowed" } });
    expect(wrongMethod.headers.get("Allow")).toContain("GET");
    expect(wrongMethod.headers.get("RateLimit-Remaining")).toBe("1");
    await callJson("/v1/nothing-here", { key: org.testKey });
    const over = await callJson("/v1/nothing-here", { key: org.testKey });
    expect(over).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    expect(over.headers.get("Retry-After")).toMatch(/^\d+$/);
  });

  it("stay plain 404 and 405 without a valid key", async () => {
    for (const key of [undefined, "sk_test_unknownunknownunknown00"]) {
      const unknown = await callJson("/v1/nothing-here", { key });
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get("RateLimit-Limit")).toBeNull();
      expect((await callJson("/v1/proofs", { key, method: "DELETE" })).status).toBe(405);
    }
  });
});

describe("GET /v1/proofs?linked=", () => {
  it("true lists only proofs with a partner, false only sealed proofs still awaiting their after", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const proof = async (changes: Record<string, unknown>) => {
      const { proofId } = await insertPendingProof(org.id, "test", 1);
      const sets = Object.keys(changes).map((column) => `${column} = ?`);
      if (sets.length > 0)
        await env.DB.prepare(`UPDATE proofs SET ${sets.join(", ")} WHERE id = ?`)
          .bind(...Object.values(changes), proofId)
          .run();
      return proofId;
    };
    const alone = await proof({ status: "sealed" });
    const before = await proof({ status: "sealed" });
    const after = await proof({ status: "pending", compare_to: before });
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after, before).run();
    const failedAlone = await proof({ status: "failed" });
    const ids = async (query: string) => ((await callJson(`/v1/proofs${query}`, { key: org.testKey })).body.data as { id: string }[]).map((p) => p.id).sort();
    expect(await ids("?linked=true")).toEqual([before, after].sort());
    expect(await ids("?linked=false")).toEqual([alone]);
    expect(await ids("")).toEqual([alone, before, after, failedAlone].sort());
  });
});

describe("webhook endpoint secrets", () => {
  it("lists only current secrets: at most two after any number of rotations, an expired one disappears (its row stays)", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const endpoint = await callJson("/v1/webhook-endpoints", { key: org.testKey, body: { url: "https://hooks.example.com/p", events: ["proof.sealed"] } });
    const expireRotated = () =>
      env.DB.prepare("UPDATE webhook_secrets SET expires_at = ? WHERE endpoint_id = ? AND expires_at IS NOT NULL")
        .bind(new Date(Date.now() - 1000).toISOString(), endpoint.body.id)
        .run();
    for (let rotation = 1; rotation <= 3; rotation++) {
      const rotated = await callJson(`/v1/webhook-endpoints/${endpoint.body.id}/rotate-secret`, { key: org.testKey, method: "POST" });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secrets).toHaveLength(2);
      await expireRotated();
      const read = await callJson(`/v1/webhook-endpoints/${endpoint.body.id}`, { key: org.testKey });
      expect(read.body.secrets).toEqual([expect.objectContaining({ status: "active", expires_at: null, hint: rotated.body.secret.slice(0, 10) })]);
      const listed = (await callJson("/v1/webhook-endpoints", { key: org.testKey })).body.data[0];
      expect(listed.secrets).toHaveLength(1);
    }
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_secrets WHERE endpoint_id = ?").bind(endpoint.body.id).first<{ n: number }>();
    expect(rows?.n).toBe(4);
  });
});

describe("POST /v1/webhook-endpoints/{id}/test", () => {
  it("refuses the reserved events, which are never sent, with 422 and without using the hourly budget", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const endpoint = await callJson("/v1/webhook-endpoints", {
      key: org.testKey,
      body: { url: "https://hooks.example.com/p", events: ["proof.sealed", "dossier.ready", "capture_session.expired"] },
    });
    for (let i = 0; i < 11; i++) {
      for (const event of ["dossier.ready", "capture_session.expired"]) {
        const refused = await callJson(`/v1/webhook-endpoints/${endpoint.body.id}/test`, { key: org.testKey, body: { event } });
        expect(refused.body).toMatchObject({ status: 422, code: "validation_failed", field: "/event" });
      }
    }
    const deliveries = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?").bind(endpoint.body.id).first<{ n: number }>();
    expect(deliveries?.n).toBe(0);
    // The hourly budget of 20 test events is untouched: the next take is the first one.
    const budget = await takeRateLimit(env.RATE_LIMIT_BUCKET, `test-events:${endpoint.body.id}`, 20, "read", 3_600_000);
    expect(budget.remaining).toBe(19);
  });
});

describe("operator balance debit", () => {
  it("is refused beyond the available balance, so the balance never goes below zero", async () => {
    const org = await createOrganization({ balance: 3 });
    expect((await createSession(org.liveKey, baseSession())).status).toBe(201);
    const tooMuch = await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -3, reason: "correction" });
    expect(tooMuch.body).toMatchObject({ status: 409, code: "debit_exceeds_available_balance", balance: 3, available: 2 });
    const adjustments = await env.DB.prepare("SELECT COUNT(*) AS n FROM balance_adjustments WHERE organization_id = ?").bind(org.id).first<{ n: number }>();
    expect(adjustments?.n).toBe(1);
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -2, reason: "correction" })).body).toEqual({ balance: 1, available: 0 });
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -1, reason: "correction" })).status).toBe(409);
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 2, reason: "top-up" })).body).toEqual({ balance: 3, available: 2 });
  });

  it("lets exactly the covered debits through when they arrive at the same time", async () => {
    const org = await createOrganization({ balance: 3 });
    const debits = await Promise.all(Array.from({ length: 8 }, () => admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -1, reason: "race" })));
    expect(debits.filter((debit) => debit.status === 200)).toHaveLength(3);
    expect(debits.filter((debit) => debit.body.code === "debit_exceeds_available_balance")).toHaveLength(5);
    const balance = await env.DB.prepare("SELECT balance FROM organizations WHERE id = ?").bind(org.id).first<{ balance: number }>();
    expect(balance?.balance).toBe(0);
  });
});

describe("problem `field` is always a JSON pointer", () => {
  it("names query, path and header parameters as /query/…, /path/…, /header/…", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    expect((await callJson("/v1/proofs?limit=0", { key: org.testKey })).body).toMatchObject({ code: "validation_failed", field: "/query/limit" });
    expect((await callJson("/v1/proofs?cursor=nope", { key: org.testKey })).body).toMatchObject({ code: "invalid_cursor", field: "/query/cursor" });
    expect((await callJson(`/v1/proofs/${"p".repeat(81)}`, { key: org.testKey })).body).toMatchObject({ code: "validation_failed", field: "/path/id" });
    const noKey = await callJson("/v1/capture-sessions", { key: org.testKey, body: baseSession() });
    expect(noKey.body).toMatchObject({ code: "validation_failed", field: "/header/Idempotency-Key" });
    expect((await createSession(org.testKey, { ...baseSession(), party: "owner" })).body.field).toBe("/party");
  });

  it("points compare_to_already_used at /compare_to when the session is created", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    const after = await insertPendingProof(org.id, "test", 1);
    await env.DB.prepare("UPDATE proofs SET status = 'sealed', compared_by = ? WHERE id = ?").bind(after.proofId, proofId).run();
    const response = await createSession(org.testKey, { external_reference: `ref-${proofId}`, party: "provider", compare_to: proofId });
    expect(response.body).toMatchObject({ status: 409, code: "compare_to_already_used", field: "/compare_to" });
  });

  it("points too_many_languages at the text that brought in the 21st language", async () => {
    const org = await createOrganization();
    const title: Record<string, string> = { en: "Hello" };
    for (let i = 0; i < 20; i++) title[`x${String.fromCharCode(97 + i)}`] = "hi";
    const response = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "many", default_locale: "en", welcome: { title }, steps: [{ id: "a", label: "A", instruction: "B" }] },
    });
    expect(response.body).toMatchObject({ status: 422, code: "too_many_languages", field: "/welcome/title/xt" });
  });

  it("documents the convention in the OpenAPI document, in both languages", async () => {
    for (const lang of ["en", "fr"]) {
      const document = (await callJson(`/openapi.json?lang=${lang}`)).body;
      expect(document.info.description).toContain("/query/limit");
      expect(document.info.description).toContain("/header/Idempotency-Key");
      expect(document.components.schemas.Problem.properties.field.description).toContain("/query/");
    }
  });

  it("refuses a webhook URL whose host has an empty label", async () => {
    for (const url of ["https://.example.com/x", "https://hooks..example.com/x"]) {
      expect(() => checkWebhookUrl(url), url).toThrow(expect.objectContaining({ code: "invalid_webhook_url", field: "/url" }));
    }
    const org = await createOrganization();
    const response = await callJson("/v1/webhook-endpoints", { key: org.testKey, body: { url: "https://.example.com/x", events: ["proof.sealed"] } });
    expect(response.body).toMatchObject({ status: 422, code: "invalid_webhook_url", field: "/url" });
    expect(checkWebhookUrl("https://hooks.example.com./x").hostname).toBe("hooks.example.com.");
  });
});
