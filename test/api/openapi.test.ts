import { describe, expect, it } from "vitest";
import { call, callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { translateDocument } from "../../src/openapi/translations.ts";
import { operations } from "./support/openapi-operations.ts";

/** Everything but the human texts: what must be identical between languages. */
function identifiers(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => identifiers(item));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !(["summary", "description", "title"].includes(k) && key !== "properties"))
        .map(([k, v]) => [k, identifiers(v, k)]),
    );
  }
  return value;
}

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1 with API version 1 and no operator routes", async () => {
    const { status, body } = await callJson("/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(body.info.version).toBe("1");
    expect(Object.keys(body.paths).some((path) => path.startsWith("/admin"))).toBe(false);
    expect(body.paths["/health"].get).toBeDefined();
    expect(body.paths["/v1/me"].get).toBeDefined();
  });

  it("documents every operation fully, with its errors in the problem format", async () => {
    const { body } = await callJson("/openapi.json");
    const ids = new Set<string>();
    for (const { path, operation } of operations(body)) {
      expect(path, "paths use {param}").not.toMatch(/:[a-z]/);
      expect(operation.operationId, path).toBeTruthy();
      expect(ids.has(operation.operationId), `duplicate ${operation.operationId}`).toBe(false);
      ids.add(operation.operationId);
      expect(operation.summary, path).toBeTruthy();
      expect(operation.description, path).toBeTruthy();
      expect(operation.tags?.length, path).toBeGreaterThan(0);
      const errorStatuses = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
      expect(errorStatuses.length, path).toBeGreaterThan(0);
      for (const status of errorStatuses) {
        // The specification gives /health/details the same body for 200 and 503.
        if (operation.operationId === "getHealthDetails" && status === "503") continue;
        expect(operation.responses[status].content["application/problem+json"], `${path} ${status}`).toBeDefined();
      }
      if (operation.security?.some((s: any) => "apiKey" in s)) {
        expect(operation, path).toHaveProperty("x-required-right");
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["401", "429"]));
      }
    }
  });

  it("is fully translated with ?lang=fr, with identical identifiers", async () => {
    const en = (await callJson("/openapi.json")).body;
    const fr = (await callJson("/openapi.json?lang=fr")).body;
    const missing: string[] = [];
    translateDocument(en, missing);
    expect(missing).toEqual([]);
    expect(identifiers(fr)).toEqual(identifiers(en));
    expect(fr.info.title).not.toBe(en.info.title);
    expect(fr.paths["/v1/me"].get.summary).not.toBe(en.paths["/v1/me"].get.summary);
  });

  it("serves the interactive reference at /docs, on the French document with ?lang=fr", async () => {
    const english = await call("/docs");
    expect(english.status).toBe(200);
    const englishHtml = await english.text();
    expect(englishHtml).toContain("/openapi.json");
    expect(englishHtml).not.toContain("/openapi.json?lang=fr");
    expect(await (await call("/docs?lang=fr")).text()).toContain("/openapi.json?lang=fr");
  });
});

describe("rights", () => {
  it("refuses every route with 403 insufficient_scope when the key lacks the right it declares", async () => {
    const { body } = await callJson("/openapi.json");
    const org = await createOrganization();
    const noRights = await createKey(org.id, { mode: "test", rights: [], rate_limit_per_minute: 10_000 });
    let checked = 0;
    for (const { method, path, operation } of operations(body)) {
      if (!operation["x-required-right"]) continue;
      const concrete = path.replaceAll(/\{[^}]+\}/g, "xyz_0000000000");
      const response = await callJson(concrete, {
        key: noRights.key,
        method: method.toUpperCase(),
        body: method === "get" || method === "delete" ? undefined : {},
      });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.code).toBe("insufficient_scope");
      expect(response.headers.get("RateLimit-Remaining"), "rate headers on errors").not.toBeNull();
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(0);
  });

  it("lets a key with exactly the declared right past the rights check", async () => {
    const { body } = await callJson("/openapi.json");
    const org = await createOrganization();
    for (const { method, path, operation } of operations(body)) {
      const right = operation["x-required-right"];
      if (!right) continue;
      const key = await createKey(org.id, { mode: "test", rights: [right], rate_limit_per_minute: 10_000 });
      const concrete = path.replaceAll(/\{[^}]+\}/g, "xyz_0000000000");
      const response = await callJson(concrete, { key: key.key, method: method.toUpperCase(), body: method === "get" || method === "delete" ? undefined : {} });
      expect([401, 403], `${method} ${path}`).not.toContain(response.status);
    }
  });
});
