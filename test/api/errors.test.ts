import { describe, expect, it } from "vitest";
import { env, exports } from "cloudflare:workers";
import { call, callJson, API } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { ERROR_CATALOGUE, ERROR_CODES, errorSlug } from "../../src/errors/catalogue.ts";

function expectProblem(response: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("Content-Type")).toBe("application/problem+json");
  expect(response.body).toMatchObject({ status, code, type: `${API}/errors/${code.replaceAll("_", "-")}` });
  expect(typeof response.body.title).toBe("string");
  expect(response.body.stack).toBeUndefined();
}

describe("problem format", () => {
  it("answers an unknown route with 404 not_found", async () => {
    expectProblem(await callJson("/v1/nothing-here"), 404, "not_found");
  });

  // Issue 28: `/v1/me/` answered 405 with `Allow: GET, HEAD`, a method the path then refused again.
  it("answers a known path with a trailing slash as the unknown path it is: 404 not_found", async () => {
    const org = await createOrganization();
    for (const path of ["/v1/me/", "/v1/proofs/", "/health/", "/v1/settings/", "/v1/webhook-endpoints/"]) {
      const response = await callJson(path, { key: org.testKey });
      expectProblem(response, 404, "not_found");
      expect(response.headers.get("Allow"), path).toBeNull();
    }
    expectProblem(await callJson("/health/"), 404, "not_found");
    expectProblem(await callJson("/v1/me/", { method: "DELETE" }), 404, "not_found");
  });

  it("answers a wrong method with 405 method_not_allowed and Allow", async () => {
    const response = await callJson("/health", { method: "DELETE" });
    expectProblem(response, 405, "method_not_allowed");
    expect(response.headers.get("Allow")).toContain("GET");
  });

  it("answers malformed JSON with 400 invalid_json", async () => {
    const response = await callJson("/admin/v1/organizations", {
      key: "test-admin-token-0123456789abcdef",
      rawBody: "{not json",
      headers: { "Content-Type": "application/json" },
      method: "POST",
    });
    expectProblem(response, 400, "invalid_json");
  });

  it("refuses a JSON body over 8 MiB with 413 payload_too_large, with or without Content-Length, and creates nothing", async () => {
    const org = await createOrganization();
    const huge = JSON.stringify({ external_reference: "big", party: "provider", padding: "x".repeat(9 * 1024 * 1024) });
    const declared = await callJson("/v1/capture-sessions", {
      key: org.testKey,
      rawBody: huge,
      headers: { "Content-Type": "application/json", "Idempotency-Key": "big-body-1" },
    });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe("payload_too_large");
    const bytes = new TextEncoder().encode(huge);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1024 * 1024) controller.enqueue(bytes.subarray(at, at + 1024 * 1024));
        controller.close();
      },
    });
    const streamed = await exports.default.fetch(
      new Request(`${API}/v1/capture-sessions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${org.testKey}`, "Content-Type": "application/json", "Idempotency-Key": "big-body-2" },
        body: chunked,
      }),
    );
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { code: string }).code).toBe("payload_too_large");
    const sessions = await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE organization_id = ?").bind(org.id).first<{ n: number }>();
    expect(sessions?.n).toBe(0);
  });

  it("answers a schema violation with 422 validation_failed and a JSON pointer", async () => {
    const response = await callJson("/admin/v1/organizations", { key: "test-admin-token-0123456789abcdef", body: { name: "" } });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.field).toBe("/name");
  });

  it("rejects unknown body fields, naming them", async () => {
    const response = await callJson("/admin/v1/organizations", { key: "test-admin-token-0123456789abcdef", body: { name: "x", extra: 1 } });
    expectProblem(response, 422, "validation_failed");
    expect(response.body.field).toBe("/extra");
  });

  it("titles errors in French when asked", async () => {
    const response = await callJson("/v1/nothing-here", { headers: { "Accept-Language": "fr-FR,fr;q=0.9" } });
    expect(response.body.title).toBe(ERROR_CATALOGUE.not_found.title.fr);
  });

  it("sends a request id on every response, errors included", async () => {
    const response = await callJson("/v1/nothing-here");
    expect(response.headers.get("Request-Id")).toMatch(/^req_/);
    expect(response.body.request_id).toBe(response.headers.get("Request-Id"));
  });

  it("refuses plain HTTP on a non-loopback host", async () => {
    expectProblem(await callJson("http://api.example.com/health"), 403, "https_required");
    const https = await call("https://api.example.com/health");
    expect(https.status).toBe(200);
    await https.body?.cancel();
  });

  it("describes every code at its type URL, in JSON and HTML", async () => {
    for (const code of ERROR_CODES) {
      const { status, body } = await callJson(`/errors/${errorSlug(code)}`);
      expect(status).toBe(200);
      expect(body).toEqual({
        code,
        status: ERROR_CATALOGUE[code].status,
        title: ERROR_CATALOGUE[code].title.en,
        description: ERROR_CATALOGUE[code].description.en,
      });
    }
    const html = await call("/errors/rate-limited", { headers: { Accept: "text/html" } });
    expect(html.headers.get("Content-Type")).toContain("text/html");
    expect(await html.text()).toContain(ERROR_CATALOGUE.rate_limited.title.en);
  });

  it("never answers with a 500 for an unknown error slug", async () => {
    expectProblem(await callJson("/errors/no-such-code"), 404, "not_found");
  });
});

describe("authentication", () => {
  it("gives 401 unauthenticated for a missing, malformed or unknown key", async () => {
    for (const key of [undefined, "not-a-key", "sk_test_unknownunknownunknown", "sk_prod_abcdefabcdefabcdef"]) {
      const response = await callJson("/v1/me", { key });
      expectProblem(response, 401, "unauthenticated");
      expect(response.headers.get("WWW-Authenticate")).toContain("Bearer");
    }
  });

  it("reports the key in use, its mode and rights", async () => {
    const org = await createOrganization();
    const test = await callJson("/v1/me", { key: org.testKey });
    expect(test.status).toBe(200);
    expect(test.body).toEqual({
      organization: { id: org.id, name: expect.any(String) },
      mode: "test",
      key_id: org.testKeyId,
      rights: ["create_proof", "read_proof", "manage_webhooks", "manage_templates", "manage_settings"],
    });
    const live = await callJson("/v1/me", { key: org.liveKey });
    expect(live.body.mode).toBe("live");
  });
});
