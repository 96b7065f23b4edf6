import { describe, expect, it } from "vitest";
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
