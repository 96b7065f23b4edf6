import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProofSeal, ProofSealConnectionError, ProofSealError } from "../src/index.ts";
import { fakeFetch, json, problem, recordingSleep } from "./fake-api.ts";

const BASE = "http://api.test";
const KEY = "sk_test_0123456789abcdef";
const session = (id: string) => ({ id, capture_url: `http://capture.test/c/${id}`, expires_at: "2026-11-26T17:00:00.000Z", mode: "test", compare_to: null });

function client(fetch: typeof globalThis.fetch, extra: Partial<ConstructorParameters<typeof ProofSeal>[0]> = {}) {
  const { waits, sleep } = recordingSleep();
  return { waits, client: new ProofSeal({ apiKey: KEY, baseUrl: BASE, fetch, sleep, random: () => 0.5, ...extra }) };
}

/** The API's idempotency as ADR 0032 describes it: a key that ran replays its answer, never a second session. */
function idempotentSessions() {
  const byKey = new Map<string, ReturnType<typeof session>>();
  return {
    created: () => byKey.size,
    answer(key: string | null): Response {
      if (key === null) return problem(422, "validation_failed", {}, { field: "/header/Idempotency-Key" });
      const replayed = byKey.has(key);
      if (!replayed) byKey.set(key, session(`cps_${byKey.size + 1}`));
      return json(201, byKey.get(key), replayed ? { "Idempotent-Replayed": "true" } : {});
    },
  };
}

describe("Idempotency-Key and retries", () => {
  it("creates one session when the first answer is lost: the retry sends the same generated key and gets the replay", async () => {
    const api = idempotentSessions();
    const { fetch, requests } = fakeFetch((request, index) => {
      const answer = api.answer(request.headers.get("idempotency-key"));
      // The request ran on the server; its answer never reached the client.
      if (index === 0) throw new TypeError("fetch failed: socket hang up");
      return answer;
    });
    const { client: sdk, waits } = client(fetch);
    const created = await sdk.captureSessions.create({ external_reference: "rental-42", party: "provider" });
    assert.equal(api.created(), 1);
    assert.equal(requests.length, 2);
    const keys = requests.map((request) => request.headers.get("idempotency-key"));
    assert.match(keys[0]!, /^[A-Za-z0-9_.:-]{8,255}$/);
    assert.equal(keys[1], keys[0]);
    assert.equal(requests[1]!.body, requests[0]!.body);
    assert.equal(created.id, "cps_1");
    assert.equal(created.lastResponse.idempotentReplayed, true);
    assert.equal(created.lastResponse.idempotencyKey, keys[0]);
    assert.equal(created.lastResponse.attempts, 2);
    assert.equal(waits.length, 1);
  });

  it("generates a new key per call and uses the one given", async () => {
    const api = idempotentSessions();
    const { fetch, requests } = fakeFetch((request) => api.answer(request.headers.get("idempotency-key")));
    const { client: sdk } = client(fetch);
    await sdk.captureSessions.create({ external_reference: "a", party: "provider" });
    await sdk.captureSessions.create({ external_reference: "b", party: "provider" });
    const given = await sdk.captureSessions.create({ external_reference: "a", party: "provider" }, { idempotencyKey: "handover-42-provider" });
    const again = await sdk.captureSessions.create({ external_reference: "a", party: "provider" }, { idempotencyKey: "handover-42-provider" });
    const keys = requests.map((request) => request.headers.get("idempotency-key"));
    assert.notEqual(keys[0], keys[1]);
    assert.deepEqual(keys.slice(2), ["handover-42-provider", "handover-42-provider"]);
    assert.equal(again.id, given.id);
    assert.equal(api.created(), 3);
  });

  it("waits Retry-After on 409 request_in_progress and 429, never less, with the same key", async () => {
    const api = idempotentSessions();
    const { fetch, requests } = fakeFetch((request, index) => {
      if (index === 0) return problem(409, "request_in_progress", { "Retry-After": "1" });
      if (index === 1) return problem(429, "rate_limited", { "Retry-After": "3" });
      return api.answer(request.headers.get("idempotency-key"));
    });
    const { client: sdk, waits } = client(fetch, { random: () => 0.99 });
    const created = await sdk.captureSessions.create({ external_reference: "r", party: "recipient" });
    assert.equal(created.lastResponse.attempts, 3);
    assert.equal(new Set(requests.map((request) => request.headers.get("idempotency-key"))).size, 1);
    assert.ok(waits[0]! >= 1000 && waits[0]! <= 1200, `waited ${waits[0]} ms for Retry-After: 1`);
    assert.ok(waits[1]! >= 3000 && waits[1]! <= 3600, `waited ${waits[1]} ms for Retry-After: 3`);
  });

  it("retries a 5xx of an idempotent call with back-off and jitter, and stops after maxRetries", async () => {
    const { fetch, requests } = fakeFetch(() => problem(503, "service_unavailable"));
    const { client: sdk, waits } = client(fetch, { maxRetries: 3, random: () => 0 });
    await assert.rejects(sdk.captureSessions.create({ external_reference: "r", party: "provider" }), (error: ProofSealError) => error.status === 503);
    assert.equal(requests.length, 4);
    assert.deepEqual(waits, [250, 500, 1000]);
    assert.equal(new Set(requests.map((request) => request.headers.get("idempotency-key"))).size, 1);
  });

  it("does not wait for a Retry-After beyond its bound: the error is thrown at once", async () => {
    const { fetch, requests } = fakeFetch(() => problem(429, "rate_limited", { "Retry-After": "600" }));
    const { client: sdk, waits } = client(fetch, { maxRetryAfterSeconds: 60 });
    await assert.rejects(sdk.proofs.get("prf_1"), (error: ProofSealError) => error.code === "rate_limited");
    assert.equal(requests.length, 1);
    assert.deepEqual(waits, []);
  });

  it("never sends a creating call without Idempotency-Key again after a lost answer or a 5xx (it may have run)", async () => {
    const lost = fakeFetch(() => {
      throw new TypeError("fetch failed");
    });
    await assert.rejects(
      client(lost.fetch).client.webhookEndpoints.create({ url: "https://hooks.example.com/x", events: ["proof.sealed"] }),
      (error: ProofSealConnectionError) => error instanceof ProofSealConnectionError && error.attempts === 1,
    );
    assert.equal(lost.requests.length, 1);
    assert.equal(lost.requests[0]!.headers.get("idempotency-key"), null);
    const failing = fakeFetch(() => problem(500, "internal_error"));
    await assert.rejects(client(failing.fetch).client.webhookEndpoints.create({ url: "https://hooks.example.com/x", events: ["proof.sealed"] }));
    assert.equal(failing.requests.length, 1);
    // A 429 was refused before it ran: safe to send again.
    const limited = fakeFetch((_, index) => (index === 0 ? problem(429, "rate_limited", { "Retry-After": "1" }) : json(201, { id: "whe_1" })));
    const created = await client(limited.fetch).client.webhookEndpoints.create({ url: "https://hooks.example.com/x", events: ["proof.sealed"] });
    assert.equal(created.id, "whe_1");
  });

  it("retries reads after a network failure or a 5xx", async () => {
    const { fetch, requests } = fakeFetch((_, index) => {
      if (index === 0) throw new TypeError("fetch failed");
      if (index === 1) return problem(502, "bad_gateway");
      return json(200, { id: "prf_1" });
    });
    const proof = await client(fetch).client.proofs.get("prf_1");
    assert.equal(proof.id, "prf_1");
    assert.equal(requests.length, 3);
  });

  it("does not retry a refusal such as 422", async () => {
    const { fetch, requests } = fakeFetch(() => problem(422, "validation_failed", {}, { field: "/party" }));
    await assert.rejects(client(fetch).client.captureSessions.create({ external_reference: "r", party: "provider" }));
    assert.equal(requests.length, 1);
  });
});

describe("errors", () => {
  it("carries the problem's code, status, field, title, type and request id", async () => {
    const { fetch } = fakeFetch(() =>
      problem(422, "validation_failed", { "RateLimit-Limit": "60", "RateLimit-Remaining": "57" }, { field: "/external_reference" }),
    );
    const error = await client(fetch)
      .client.captureSessions.create({ external_reference: "has spaces", party: "provider" })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof ProofSealError);
    assert.equal(error.code, "validation_failed");
    assert.equal(error.status, 422);
    assert.equal(error.field, "/external_reference");
    assert.equal(error.title, "Title of validation_failed");
    assert.equal(error.type, "http://localhost:8787/errors/validation_failed");
    assert.equal(error.requestId, "req_problem1");
    assert.deepEqual(error.lastResponse.rateLimit, { limit: 60, remaining: 57, resetSeconds: null });
    assert.match(error.message, /422 validation_failed.*\/external_reference/);
  });

  it("turns an answer that is not a problem into an error with code unexpected_response", async () => {
    const { fetch } = fakeFetch(() => new Response("<html>Bad gateway</html>", { status: 404 }));
    const error = (await client(fetch)
      .client.me()
      .catch((caught: unknown) => caught)) as ProofSealError;
    assert.equal(error.code, "unexpected_response");
    assert.equal(error.status, 404);
  });
});

describe("answers", () => {
  it("exposes the rate-limit headers, request id and status on every answer, out of JSON.stringify", async () => {
    const { fetch, requests } = fakeFetch(() =>
      json(
        200,
        { organization: { id: "org_1", name: "Demo" }, mode: "test", key_id: "key_1", rights: [] },
        { "RateLimit-Limit": "60", "RateLimit-Remaining": "59", "RateLimit-Reset": "41" },
      ),
    );
    const me = await client(fetch).client.me();
    assert.deepEqual(me.lastResponse.rateLimit, { limit: 60, remaining: 59, resetSeconds: 41 });
    assert.equal(me.lastResponse.requestId, "req_test1");
    assert.equal(me.lastResponse.status, 200);
    assert.equal(JSON.stringify(me), JSON.stringify({ organization: { id: "org_1", name: "Demo" }, mode: "test", key_id: "key_1", rights: [] }));
    assert.equal(requests[0]!.headers.get("authorization"), `Bearer ${KEY}`);
  });

  it("reads the mode from the key's prefix and refuses a key that is neither", () => {
    assert.equal(new ProofSeal({ apiKey: "sk_test_x", baseUrl: BASE }).mode, "test");
    assert.equal(new ProofSeal({ apiKey: "sk_live_x", baseUrl: BASE }).mode, "live");
    assert.equal(new ProofSeal({ baseUrl: BASE }).mode, null);
    assert.throws(() => new ProofSeal({ apiKey: "pk_test_x", baseUrl: BASE }), TypeError);
  });

  it("calls public routes without a key and refuses private ones before sending anything", async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { id: "prf_1" }));
    const anonymous = new ProofSeal({ baseUrl: BASE, fetch });
    await anonymous.public.getProof("prf_1");
    assert.equal(requests[0]!.headers.get("authorization"), null);
    await assert.rejects(anonymous.proofs.get("prf_1"), TypeError);
    assert.equal(requests.length, 1);
  });

  it("names the proof an original is looked up in: proof_id in the hash's body and the bytes' query, only when given (ADR 0060)", async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { data: [] }));
    const anonymous = new ProofSeal({ baseUrl: BASE, fetch });
    const sha256 = "a".repeat(64);
    const stop = new AbortController();
    await anonymous.public.verifyHash(sha256, { proofId: "prf_1", signal: stop.signal });
    await anonymous.public.verifyHash(sha256);
    await anonymous.public.verifyFile(new Uint8Array([1, 2, 3]), { proofId: "prf_1" });
    await anonymous.public.verifyFile(new Uint8Array([1, 2, 3]));
    assert.deepEqual(
      requests.map((request) => [request.method, request.url.pathname + request.url.search, request.body]),
      [
        ["POST", "/v1/public/verify", JSON.stringify({ sha256, proof_id: "prf_1" })],
        ["POST", "/v1/public/verify", JSON.stringify({ sha256 })],
        ["POST", "/v1/public/verify?proof_id=prf_1", null],
        ["POST", "/v1/public/verify", null],
      ],
    );
    assert.equal(requests[2]!.headers.get("content-type"), "application/octet-stream");
  });
});

describe("list iteration", () => {
  it("follows next_cursor until has_more is false, keeping the filters, booleans as the API reads them", async () => {
    const pages: Record<string, { data: { id: string }[]; has_more: boolean; next_cursor: string | null }> = {
      "": { data: [{ id: "prf_3" }, { id: "prf_2" }], has_more: true, next_cursor: "c1" },
      c1: { data: [{ id: "prf_1" }], has_more: true, next_cursor: "c2" },
      c2: { data: [], has_more: false, next_cursor: null },
    };
    const { fetch, requests } = fakeFetch((request) =>
      json(200, pages[request.url.searchParams.get("cursor") ?? ""], { "RateLimit-Limit": "60", "RateLimit-Remaining": "50" }),
    );
    const sdk = client(fetch).client;
    const ids: string[] = [];
    for await (const proof of sdk.proofs.list({ linked: false, limit: 2 })) ids.push(proof.id);
    assert.deepEqual(ids, ["prf_3", "prf_2", "prf_1"]);
    assert.deepEqual(
      requests.map((request) => request.url.search),
      ["?linked=false&limit=2", "?linked=false&limit=2&cursor=c1", "?linked=false&limit=2&cursor=c2"],
    );
    const first = await sdk.proofs.list({ limit: 2 }).firstPage();
    assert.equal(first.next_cursor, "c1");
    assert.equal(first.lastResponse.rateLimit?.remaining, 50);
    let pageCount = 0;
    for await (const page of sdk.proofs.list({ cursor: "c1" }).pages()) pageCount += page.data.length >= 0 ? 1 : 0;
    assert.equal(pageCount, 2);
    assert.deepEqual(await sdk.proofs.list().toArray(2), [{ id: "prf_3" }, { id: "prf_2" }]);
  });
});
