import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, randomJpeg, tokenOf } from "./support/capture.ts";
import { translateDocument } from "../../src/openapi/translations.ts";
import { operations } from "./support/openapi-operations.ts";
import { IDEMPOTENCY_KEY_PATTERN } from "../../src/lib/patterns.ts";

const headerNames = (response: any) => Object.keys(response.headers ?? {});

describe("response headers in /openapi.json", () => {
  it("declares Request-Id on every response, the RateLimit headers on every authenticated one, Retry-After on 429 and 503", async () => {
    const { body } = await callJson("/openapi.json");
    for (const { method, path, operation } of operations(body)) {
      const authenticated = (operation.security ?? []).some((requirement: object) => "apiKey" in requirement);
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const where = `${method} ${path} ${status}`;
        expect(headerNames(response), where).toContain("Request-Id");
        if (authenticated && status !== "401")
          expect(headerNames(response), where).toEqual(expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]));
        if (status === "429" || status === "503") expect(headerNames(response), where).toContain("Retry-After");
        for (const header of Object.values<any>(response.headers)) {
          expect(body.components.headers[header.$ref.replace("#/components/headers/", "")], where).toBeDefined();
        }
      }
    }
    expect(Object.keys(body.components.headers).sort()).toEqual([
      "Idempotent-Replayed",
      "Proof-Mode",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "Request-Id",
      "Retry-After",
    ]);
  });

  it("declares the RateLimit headers on the answers of a public route limited per client address", async () => {
    const { body } = await callJson("/openapi.json");
    const verify = body.paths["/v1/public/verify"].post;
    expect(headerNames(verify.responses["200"])).toEqual(expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]));
    expect(headerNames(body.paths["/v1/public/proofs/{id}"].get.responses["200"])).not.toContain("RateLimit-Limit");
  });

  it("declares Idempotent-Replayed on idempotent creates, and the Idempotency-Key pattern the middleware applies", async () => {
    const { body } = await callJson("/openapi.json");
    const create = body.paths["/v1/capture-sessions"].post;
    expect(headerNames(create.responses["201"])).toContain("Idempotent-Replayed");
    expect(headerNames(create.responses["409"])).toContain("Retry-After");
    const parameter = create.parameters.find((p: any) => p.in === "header" && p.name === "Idempotency-Key");
    expect(parameter.required).toBe(true);
    expect(parameter.schema.pattern).toBe(IDEMPOTENCY_KEY_PATTERN.source);
    const documented = new RegExp(parameter.schema.pattern);
    for (const key of ["abcdefgh", "order-2026:11.23_x", "a".repeat(255), "short", "a".repeat(256), "with space1", "ünïcode-key", "slash/key/1"]) {
      expect(documented.test(key), key).toBe(IDEMPOTENCY_KEY_PATTERN.test(key));
    }
    // The documented pattern is the one enforced: a key it refuses is refused.
    const org = await createOrganization();
    const refused = await createSession(org.testKey, baseSession(), "with space1");
    expect(refused.body).toMatchObject({ status: 422, code: "validation_failed" });
    const answered = await createSession(org.testKey, baseSession());
    for (const name of ["Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) expect(answered.headers.get(name), name).not.toBeNull();
  });
});

describe("GET /openapi-capture.json", () => {
  it("documents the capture page's routes on the capture host, generated from their schemas, in English and French", async () => {
    const en = await callJson("/openapi-capture.json");
    const fr = await callJson("/openapi-capture.json?lang=fr");
    expect(en.status).toBe(200);
    expect(en.body.openapi).toBe("3.1.0");
    expect(en.body.servers).toEqual([{ url: env.CAPTURE_BASE_URL, description: "Capture host" }]);
    expect(Object.keys(en.body.paths).sort()).toEqual([
      "/c/{token}/complete",
      "/c/{token}/files",
      "/c/{token}/files/{fileId}",
      "/c/{token}/files/{fileId}/complete",
      "/c/{token}/files/{fileId}/upload",
      "/c/{token}/session",
    ]);
    for (const { method, path, operation } of operations(en.body)) {
      expect(operation.operationId, `${method} ${path}`).toBeTruthy();
      expect(operation.security).toEqual([]);
      expect(operation.responses["410"], `${method} ${path}`).toBeDefined();
      for (const response of Object.values<any>(operation.responses)) expect(headerNames(response)).toContain("Request-Id");
    }
    const declare = en.body.paths["/c/{token}/files"].post;
    expect(declare.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/DeclareCaptureFile");
    expect(en.body.components.schemas.DeclareCaptureFile.required.sort()).toEqual(["content_type", "sha256", "size", "step_id"]);
    expect(en.body.components.schemas.CaptureUpload.properties).toHaveProperty("url");
    expect(en.body.components.schemas.CaptureSessionView).toBeDefined();
    const missing: string[] = [];
    translateDocument(en.body, missing);
    expect(missing).toEqual([]);
    expect(Object.keys(fr.body.paths)).toEqual(Object.keys(en.body.paths));
    expect(fr.body.info.description).not.toBe(en.body.info.description);
    // Not in the integrators' document.
    expect(Object.keys((await callJson("/openapi.json")).body.paths).filter((path) => path.startsWith("/c/"))).toEqual([]);
  });
});

describe("CONTRACT.md's capture shapes, as a subset", () => {
  it("accepts a declaration with only step_id, content_type, size and sha256, records the method as unknown, and answers a single upload url", async () => {
    const org = await createOrganization();
    const token = tokenOf((await createSession(org.testKey, baseSession())).body.capture_url);
    const photo = await randomJpeg(4096);
    const declared = await captureCall(token, "/files", {
      body: { step_id: "photos", content_type: "image/jpeg", size: photo.bytes.length, sha256: photo.sha256 },
    });
    expect(declared.status).toBe(201);
    const { upload } = declared.body;
    expect(upload).toMatchObject({ method: "PUT", url: upload.parts[0].url, headers: upload.parts[0].headers, complete: null });
    const put = await call(upload.url, {
      method: upload.method,
      rawBody: photo.bytes as unknown as string,
      headers: { ...upload.headers, "Content-Length": String(photo.bytes.length) },
    });
    await put.arrayBuffer();
    expect(put.status).toBe(200);
    const row = await env.DB.prepare("SELECT capture_context, status FROM files WHERE id = ?")
      .bind(declared.body.file_id)
      .first<{ capture_context: string; status: string }>();
    expect(row?.status).toBe("uploaded");
    // The service's own facts sit beside the (absent) report: no clock offset without a device time, the page version it serves.
    expect(JSON.parse(row!.capture_context)).toEqual({ method: "unknown", clock_offset_ms: null, capture_page_version: env.BUILD_COMMIT });
    const completed = await captureCall(token, "/complete", { body: {} });
    expect(completed.status).toBe(200);
    expect(completed.body.proof_id).toMatch(/^prf_/);
  });

  it("gives a multipart upload no single url", async () => {
    const org = await createOrganization();
    const template = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "Video", welcome: { title: "Film" }, steps: [{ id: "walk", label: "Walk", instruction: "Walk around", kind: "video", max_count: 1 }] },
    });
    const token = tokenOf((await createSession(org.testKey, { ...baseSession(), template_id: template.body.id })).body.capture_url);
    const declared = await captureCall(token, "/files", {
      body: { step_id: "walk", content_type: "video/mp4", size: 40 * 1024 * 1024, sha256: "a".repeat(64) },
    });
    expect(declared.status).toBe(201);
    expect(declared.body.upload.parts).toHaveLength(3);
    expect(declared.body.upload.url).toBeUndefined();
    expect((await captureCall(token, `/files/${declared.body.file_id}`, { method: "DELETE" })).status).toBe(204);
  });
});
