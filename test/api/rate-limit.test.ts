import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { PERSIST_DELAY_MS, RateLimitBucket } from "../../src/durable/rate-limit-bucket.ts";

describe("rate limit per key", () => {
  it("lets 60 reads through in a minute and refuses the 61st with Retry-After", async () => {
    const org = await createOrganization();
    const responses = [];
    for (let i = 0; i < 60; i++) responses.push(await callJson("/v1/me", { key: org.testKey }));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.map((r) => Number(r.headers.get("RateLimit-Remaining")))).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    const refused = await callJson("/v1/me", { key: org.testKey });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("RateLimit-Limit")).toBe("60");
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
  });

  it("counts each key separately and honours the key's own limit", async () => {
    const org = await createOrganization();
    const small = await createKey(org.id, { mode: "test", rate_limit_per_minute: 3 });
    for (let i = 0; i < 3; i++) expect((await callJson("/v1/me", { key: small.key })).status).toBe(200);
    expect((await callJson("/v1/me", { key: small.key })).status).toBe(429);
    expect((await callJson("/v1/me", { key: org.testKey })).status).toBe(200);
  });

  it("is exact under concurrency: 20 parallel reads against a limit of 10 give 10 successes", async () => {
    const org = await createOrganization();
    const key = await createKey(org.id, { mode: "live", rate_limit_per_minute: 10 });
    const results = await Promise.all(Array.from({ length: 20 }, () => callJson("/v1/me", { key: key.key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
  });

  it("sends the rate headers on successful authenticated responses", async () => {
    const org = await createOrganization();
    const readOnly = await createKey(org.id, { mode: "test", rights: ["read_proof"] });
    const ok = await callJson("/v1/me", { key: readOnly.key });
    for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) expect(ok.headers.get(name)).not.toBeNull();
  });

  it("charges 2 for a write and opens a new window after a minute", async () => {
    const id = env.RATE_LIMIT_BUCKET.idFromName(`unit-${crypto.randomUUID()}`);
    const stub = env.RATE_LIMIT_BUCKET.get(id);
    await runInDurableObject(stub, (bucket: RateLimitBucket) => {
      const start = 1_000_000;
      expect(bucket.take(2, 5, start)).toMatchObject({ allowed: true, remaining: 3 });
      expect(bucket.take(2, 5, start + 1)).toMatchObject({ allowed: true, remaining: 1 });
      expect(bucket.take(2, 5, start + 2)).toMatchObject({ allowed: false, remaining: 1, resetSeconds: 60 });
      expect(bucket.take(1, 5, start + 3)).toMatchObject({ allowed: true, remaining: 0 });
      expect(bucket.take(2, 5, start + 60_000)).toMatchObject({ allowed: true, remaining: 3, resetSeconds: 60 });
    });
  });

  it("writes its count once for the requests of a moment, and a restarted object counts on from it", async () => {
    const stub = env.RATE_LIMIT_BUCKET.get(env.RATE_LIMIT_BUCKET.idFromName(`persist-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (bucket: RateLimitBucket, state) => {
      const start = Date.now();
      expect(bucket.take(2, 10, start)).toMatchObject({ allowed: true, remaining: 8 });
      expect(bucket.take(3, 10, start + 1)).toMatchObject({ allowed: true, remaining: 5 });
      // No write per request: the count is written once the moment has passed.
      expect(state.storage.kv.get("used")).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, PERSIST_DELAY_MS + 200));
      expect(state.storage.kv.get("used")).toBe(5);
      // What a restart sees: a new instance over the same storage.
      const restarted = new RateLimitBucket(state, env);
      expect(restarted.take(5, 10, start + 2)).toMatchObject({ allowed: true, remaining: 0 });
      expect(restarted.take(1, 10, start + 3)).toMatchObject({ allowed: false, remaining: 0 });
    });
  });
});
