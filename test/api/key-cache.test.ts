import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { CALLER_CACHE_TTL_MS, cachedCaller, forgetCallerKey, rememberCaller, revocationCount } from "../../src/auth/caller-cache.ts";
import type { ApiCaller } from "../../src/env.ts";

/** Verified keys are cached in the isolate for a bounded time that revocation honours (src/auth/caller-cache.ts). */
describe("API key cache", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is bounded to 10 seconds, the delay the OpenAPI document gives for a revocation (English and French)", async () => {
    expect(CALLER_CACHE_TTL_MS).toBe(10_000);
    const english = (await callJson("/openapi.json")).body.components.securitySchemes.apiKey.description;
    const french = (await callJson("/openapi.json?lang=fr")).body.components.securitySchemes.apiKey.description;
    expect(english).toContain("A revoked key is refused (401) within 10 seconds");
    expect(french).toContain("Une clé révoquée est refusée (401) dans les 10 secondes");
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
    const within = await Promise.all(Array.from({ length: 8 }, () => callJson("/v1/me", { key: org.testKey })));
    expect(within.map((r) => r.status)).toEqual(Array(8).fill(200));
    clock.mockReturnValue(start + CALLER_CACHE_TTL_MS);
    const after = await Promise.all(Array.from({ length: 8 }, () => callJson("/v1/me", { key: org.testKey })));
    for (const refused of after) {
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe("unauthenticated");
    }
  });

  it("counts the 10 seconds from when D1 was asked, so a slow answer does not stretch them", async () => {
    const org = await createOrganization();
    const start = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(start);
    const bindings = env as unknown as Record<string, unknown>;
    const saved = env.DB;
    // The key's lookup is answered 4 seconds after it was asked (a far primary under load).
    bindings.DB = {
      prepare: (sql: string) => {
        if (sql.includes("api_keys")) clock.mockReturnValue(start + 4_000);
        return saved.prepare(sql);
      },
      batch: (statements: D1PreparedStatement[]) => saved.batch(statements),
    };
    try {
      expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
    } finally {
      bindings.DB = saved;
    }
    // Revoked elsewhere right after D1 read the key: 10 seconds later it must be refused here.
    await saved.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date(start).toISOString(), org.testKeyId).run();
    clock.mockReturnValue(start + CALLER_CACHE_TTL_MS);
    const refused = await callJson("/v1/me", { key: org.testKey });
    expect(refused.status).toBe(401);
  });

  it("a key revoked while requests with it are in flight stops working once the revocation has answered", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    // Requests not yet cached race the revocation: whichever way they interleave, none may leave it cached.
    await Promise.all([
      ...Array.from({ length: 8 }, () => callJson("/v1/me", { key: org.testKey })),
      admin(`/admin/v1/api-keys/${org.testKeyId}`, undefined, "DELETE"),
      ...Array.from({ length: 8 }, () => callJson("/v1/me", { key: org.testKey })),
    ]);
    const after = await Promise.all(Array.from({ length: 4 }, () => callJson("/v1/me", { key: org.testKey })));
    expect(after.map((r) => r.status)).toEqual([401, 401, 401, 401]);
  });

  it("never remembers a D1 answer read before a revocation this isolate made", () => {
    const key = `sk_test_${crypto.randomUUID()}`;
    const caller = { keyId: `key_${crypto.randomUUID()}` } as ApiCaller;
    const before = revocationCount();
    // The lookup's D1 read happened here; the key is revoked (and forgotten) before its answer is kept.
    forgetCallerKey(caller.keyId);
    rememberCaller(key, caller, before, Date.now());
    expect(cachedCaller(key)).toBeNull();
    rememberCaller(key, caller, revocationCount(), Date.now());
    expect(cachedCaller(key)).toBe(caller);
  });

  it("an unknown key is never cached: a key created a moment after a refused attempt works at once", async () => {
    const org = await createOrganization();
    const wrong = `sk_test_${"x".repeat(32)}`;
    expect((await callJson("/v1/me", { key: wrong })).status).toBe(401);
    expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
  });
});
