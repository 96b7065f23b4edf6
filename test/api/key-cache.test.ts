import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { CALLER_CACHE_TTL_MS } from "../../src/auth/caller-cache.ts";

/** Verified keys are cached in the isolate for a bounded time that revocation honours (src/auth/caller-cache.ts). */
describe("API key cache", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is bounded to 10 seconds", () => {
    expect(CALLER_CACHE_TTL_MS).toBe(10_000);
  });

  it("a key revoked through the operator API stops working at once in the isolate that revoked it", async () => {
    const org = await createOrganization();
    expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
    expect((await admin(`/admin/v1/api-keys/${org.testKeyId}`, undefined, "DELETE")).status).toBe(204);
    const refused = await callJson("/v1/me", { key: org.testKey });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("unauthenticated");
  });

  it("a key revoked elsewhere (another isolate) stops working here within the documented delay", async () => {
    const org = await createOrganization();
    const start = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(start);
    expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
    // What another isolate's revocation leaves behind: the row revoked, this isolate's cache untouched.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date(start).toISOString(), org.testKeyId).run();
    clock.mockReturnValue(start + CALLER_CACHE_TTL_MS - 1);
    expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
    clock.mockReturnValue(start + CALLER_CACHE_TTL_MS);
    const refused = await callJson("/v1/me", { key: org.testKey });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("unauthenticated");
  });

  it("an unknown key is never cached: a key created a moment after a refused attempt works at once", async () => {
    const org = await createOrganization();
    const wrong = `sk_test_${"x".repeat(32)}`;
    expect((await callJson("/v1/me", { key: wrong })).status).toBe(401);
    expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
  });
});
