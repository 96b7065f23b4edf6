import { describe, expect, it } from "vitest";
import { z } from "@hono/zod-openapi";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { optionalBodyValue } from "../../src/openapi/bodies.ts";
import { ApiError } from "../../src/errors/api-error.ts";

/** Optional JSON bodies (secret rotation, test events) are validated like any other: 422 naming the field, never a 500. */
describe("optional JSON bodies", () => {
  async function endpointOf() {
    const org = await createOrganization();
    const created = await callJson("/v1/webhook-endpoints", {
      key: org.testKey,
      body: { url: "https://hooks.example.com/optional", events: ["proof.sealed"] },
    });
    expect(created.status).toBe(201);
    return { key: org.testKey, id: created.body.id as string };
  }

  it("a rotation body of the wrong type or with an unknown field is a 422 naming the field", async () => {
    const { key, id } = await endpointOf();
    const wrongType = await callJson(`/v1/webhook-endpoints/${id}/rotate-secret`, { key, body: { expires_in_seconds: "tomorrow" } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body).toMatchObject({ code: "validation_failed", field: "/expires_in_seconds" });
    const unknown = await callJson(`/v1/webhook-endpoints/${id}/rotate-secret`, { key, body: { expires_in: 3600 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: "validation_failed", field: "/expires_in" });
    const notAnObject = await callJson(`/v1/webhook-endpoints/${id}/rotate-secret`, { key, rawBody: "[]", headers: { "Content-Type": "application/json" } });
    expect(notAnObject.status).toBe(422);
    expect(notAnObject.body.code).toBe("validation_failed");
  });

  it("a rotation without a body takes the default: the old secret signs one more day", async () => {
    const { key, id } = await endpointOf();
    const before = Date.now();
    const rotated = await callJson(`/v1/webhook-endpoints/${id}/rotate-secret`, { key, method: "POST" });
    expect(rotated.status).toBe(200);
    const expiresAt = Date.parse(rotated.body.secrets[0].expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
  });

  it("a test event naming a reserved event is a 422 on /event, and sends nothing", async () => {
    const { key, id } = await endpointOf();
    const refused = await callJson(`/v1/webhook-endpoints/${id}/test`, { key, body: { event: "dossier.ready" } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "validation_failed", field: "/event" });
    const sent = await callJson(`/v1/webhook-endpoints/${id}/test`, { key, method: "POST" });
    expect(sent.status).toBe(202);
    expect(sent.body.event).toBe("proof.sealed");
  });

  it("a file completion with malformed parts is a 422 naming the part's field; without a body it completes", async () => {
    const org = await createOrganization();
    const created = await createSession(org.testKey, baseSession());
    const token = tokenOf(created.body.capture_url);
    const { fileId } = await uploadPhoto(token);
    const refused = await captureCall(token, `/files/${fileId}/complete`, { body: { parts: [{ part_number: 0, etag: "x" }] } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "validation_failed", field: "/parts/0/part_number" });
    // A file sent in one part has nothing to assemble: the body-less call reaches the rule, not a 500.
    const bodyless = await captureCall(token, `/files/${fileId}/complete`, { method: "POST" });
    expect(bodyless.status).toBe(404);
    expect(bodyless.body.code).toBe("capture_file_not_found");
  });

  it("a body in another media type is a 415, not a 500", async () => {
    const { key, id } = await endpointOf();
    const response = await call(`/v1/webhook-endpoints/${id}/rotate-secret`, {
      key,
      method: "POST",
      rawBody: "expires_in_seconds=60",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(415);
    await response.body?.cancel();
  });

  it("the helper turns a schema the absent body cannot satisfy into a 422 naming the field, never a ZodError", () => {
    const NeedsName = z.strictObject({ name: z.string() });
    let thrown: unknown;
    try {
      optionalBodyValue(NeedsName, {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: "validation_failed", status: 422, field: "/name" });
    expect(optionalBodyValue(z.strictObject({ n: z.number().default(7) }), {})).toEqual({ n: 7 });
  });
});
