import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const redocly = resolve(import.meta.dirname, "../../node_modules/.bin/redocly");

function problem(response: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(response.body).toMatchObject({ status, code, type: `${stack.baseUrl}/errors/${code.replaceAll("_", "-")}` });
}

describe("foundation over HTTP on npm run dev", () => {
  it("serves /health with exactly status, version and commit", async () => {
    const { status, body } = await request(`${stack.baseUrl}/health`);
    expect(status).toBe(200);
    const head = execFileSync("git", ["rev-parse", "HEAD"]).toString().trim();
    expect(body).toEqual({ status: "ok", version: expect.any(String), commit: head });
  });

  it("guards /health/details with the supervision token only", async () => {
    for (const token of [undefined, "wrong", stack.testKey]) problem(await request(`${stack.baseUrl}/health/details`, { token }), 401, "unauthenticated");
    const { status, body } = await request(`${stack.baseUrl}/health/details`, { token: stack.supervisionToken });
    expect([200, 503]).toContain(status);
    expect(Object.keys(body.checks).sort()).toEqual(["database", "storage", "timestamp_authority"]);
    expect(body.checks.database.status).toBe("ok");
    expect(body.checks.storage.status).toBe("ok");
  });

  it("answers errors in the problem format with stable codes, and their type URLs resolve", async () => {
    problem(await request(`${stack.baseUrl}/v1/me`), 401, "unauthenticated");
    problem(await request(`${stack.baseUrl}/v1/me`, { token: "sk_test_doesnotexistdoesnotexist" }), 401, "unauthenticated");
    problem(await request(`${stack.baseUrl}/v1/unknown`), 404, "not_found");
    problem(await request(`${stack.baseUrl}/health`, { method: "POST" }), 405, "method_not_allowed");
    const admin = { token: stack.adminToken };
    const badJson = await fetch(`${stack.baseUrl}/admin/v1/organizations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${stack.adminToken}`, "Content-Type": "application/json" },
      body: "{oops",
    });
    problem({ status: badJson.status, headers: badJson.headers, body: await badJson.json() }, 400, "invalid_json");
    const invalid = await request(`${stack.baseUrl}/admin/v1/organizations`, { ...admin, body: { name: "x", unknown: true } });
    problem(invalid, 422, "validation_failed");
    expect(invalid.body.field).toBe("/unknown");
    const described = await request(invalid.body.type);
    expect(described.status).toBe(200);
    expect(described.body.code).toBe("validation_failed");
  });

  it("refuses plain HTTP on a non-loopback host", async () => {
    const port = new URL(stack.baseUrl).port;
    const { status, body } = await new Promise<{ status: number; body: any }>((done, fail) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: "/health", headers: { Host: "api.example.com" } }, (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on("error", fail);
      req.end();
    });
    expect(status).toBe(403);
    expect(body.code).toBe("https_required");
  });

  it("issues and revokes keys through the operator API, with rights enforced", async () => {
    const org = await request(`${stack.baseUrl}/admin/v1/organizations`, { token: stack.adminToken, body: { name: "E2E org" } });
    expect(org.status).toBe(201);
    const key = await request(`${stack.baseUrl}/admin/v1/organizations/${org.body.id}/api-keys`, {
      token: stack.adminToken,
      body: { mode: "test", rights: ["read_proof"] },
    });
    expect(key.status).toBe(201);
    const me = await request(`${stack.baseUrl}/v1/me`, { token: key.body.key });
    expect(me.body).toMatchObject({ mode: "test", rights: ["read_proof"], key_id: key.body.id });
    const document = (await request(`${stack.baseUrl}/openapi.json`)).body;
    const needingOtherRight = Object.entries<any>(document.paths)
      .flatMap(([path, item]) => Object.entries<any>(item).map(([method, operation]) => ({ path, method, operation })))
      .find(({ operation }) => operation["x-required-right"] && operation["x-required-right"] !== "read_proof");
    if (needingOtherRight) {
      const url = `${stack.baseUrl}${needingOtherRight.path.replaceAll(/\{[^}]+\}/g, "x_1")}`;
      const method = needingOtherRight.method.toUpperCase();
      problem(await request(url, { method, token: key.body.key, body: method === "GET" || method === "DELETE" ? undefined : {} }), 403, "insufficient_scope");
    }
    const revoked = await request(`${stack.baseUrl}/admin/v1/api-keys/${key.body.id}`, { method: "DELETE", token: stack.adminToken });
    expect(revoked.status).toBe(204);
    problem(await request(`${stack.baseUrl}/v1/me`, { token: key.body.key }), 401, "unauthenticated");
  });

  it("refuses the 61st read of a minute with Retry-After, with rate headers on every response", async () => {
    const org = await request(`${stack.baseUrl}/admin/v1/organizations`, { token: stack.adminToken, body: { name: "Rate org" } });
    const key = await request(`${stack.baseUrl}/admin/v1/organizations/${org.body.id}/api-keys`, { token: stack.adminToken, body: { mode: "live" } });
    for (let i = 1; i <= 60; i++) {
      const response = await request(`${stack.baseUrl}/v1/me`, { token: key.body.key });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBe("60");
      expect(response.headers.get("ratelimit-remaining")).toBe(String(60 - i));
      expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    }
    const refused = await request(`${stack.baseUrl}/v1/me`, { token: key.body.key });
    problem(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
  });

  it("publishes an OpenAPI 3.1 document that lints clean in English and in French with identical identifiers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-"));
    const en = (await request(`${stack.baseUrl}/openapi.json`)).body;
    const fr = (await request(`${stack.baseUrl}/openapi.json?lang=fr`)).body;
    expect(en.openapi).toBe("3.1.0");
    expect(en.info.version).toBe("1");
    for (const [name, document] of [
      ["en", en],
      ["fr", fr],
    ] as const) {
      const file = join(dir, `openapi.${name}.json`);
      writeFileSync(file, JSON.stringify(document));
      const lint = spawnSync(redocly, ["lint", file, "--format=stylish"], { encoding: "utf8" });
      expect(lint.status, `${name}: ${lint.stdout}${lint.stderr}`).toBe(0);
    }
    expect(Object.keys(fr.paths)).toEqual(Object.keys(en.paths));
    expect(Object.keys(fr.components.schemas)).toEqual(Object.keys(en.components.schemas));
    const operationIds = (doc: any) => Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    expect(operationIds(fr)).toEqual(operationIds(en));
    expect(fr.info.description).not.toBe(en.info.description);
    const docs = await fetch(`${stack.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    await docs.body?.cancel();
  });

  it("publishes the capture page's protocol as a second document that lints clean in English and in French", async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-capture-"));
    const en = (await request(`${stack.baseUrl}/openapi-capture.json`)).body;
    const fr = (await request(`${stack.baseUrl}/openapi-capture.json?lang=fr`)).body;
    expect(en.servers[0].url).toBe(stack.captureBaseUrl);
    expect(Object.keys(en.paths)).toContain("/c/{token}/files");
    for (const [name, document] of [
      ["en", en],
      ["fr", fr],
    ] as const) {
      const file = join(dir, `openapi-capture.${name}.json`);
      writeFileSync(file, JSON.stringify(document));
      const lint = spawnSync(redocly, ["lint", file, "--format=stylish"], { encoding: "utf8" });
      expect(lint.status, `${name}: ${lint.stdout}${lint.stderr}`).toBe(0);
    }
    expect(Object.keys(fr.paths)).toEqual(Object.keys(en.paths));
    expect(fr.info.description).not.toBe(en.info.description);
  });
});
