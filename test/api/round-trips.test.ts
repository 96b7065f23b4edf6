import { describe, expect, it } from "vitest";
import { call } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { countRoundTrips, type RoundTrips } from "./support/round-trips.ts";

/**
 * The API's fixed cost (issue 17 point 4): the storage round trips each request makes once the caller's
 * key is known to the isolate (the steady state of an integrator's traffic). Targets: an authenticated
 * read reaches its data in at most 2 sequential round trips, a creation in at most 4. The table printed
 * here is the one in the README ("What a request costs").
 */
const rows: Array<{ route: string; trips: RoundTrips }> = [];

async function measure(route: string, work: () => Promise<Response | { status: number }>, expectedStatus: number): Promise<RoundTrips> {
  const { result, trips } = await countRoundTrips(work);
  expect(result.status, route).toBe(expectedStatus);
  rows.push({ route, trips });
  return trips;
}

describe("storage round trips per request", () => {
  it("authenticated reads take at most 2 sequential round trips, creations at most 4", async () => {
    const org = await createOrganization({ balance: 5 });
    // The first call of a key in an isolate looks it up in D1; the measures below are the steady state.
    const cold = await countRoundTrips(() => call("/v1/me", { key: org.liveKey }));
    rows.push({ route: "GET /v1/me (key not yet cached)", trips: cold.trips });
    await call("/v1/me", { key: org.testKey });

    await measure("GET /health", () => call("/health"), 200);
    const me = await measure("GET /v1/me", () => call("/v1/me", { key: org.testKey }), 200);
    // The first creation copying a template in an isolate stores its snapshot too; the next ones insert alone.
    await measure("POST /v1/capture-sessions (test, template not yet stored by this isolate)", () => createSession(org.testKey, baseSession()), 201);
    const testSession = await measure("POST /v1/capture-sessions (test)", () => createSession(org.testKey, baseSession()), 201);
    const liveSession = await measure("POST /v1/capture-sessions (live, reserves 1)", () => createSession(org.liveKey, baseSession()), 201);
    const replayKey = crypto.randomUUID();
    const replayed = baseSession();
    await createSession(org.testKey, replayed, replayKey);
    await measure("POST /v1/capture-sessions (idempotent replay)", () => createSession(org.testKey, replayed, replayKey), 201);
    const created = await createSession(org.testKey, baseSession());
    const getSession = await measure("GET /v1/capture-sessions/{id}", () => call(`/v1/capture-sessions/${created.body.id}`, { key: org.testKey }), 200);
    const listProofs = await measure("GET /v1/proofs", () => call("/v1/proofs", { key: org.testKey }), 200);
    const listTemplates = await measure("GET /v1/capture-templates", () => call("/v1/capture-templates", { key: org.testKey }), 200);
    const getSettings = await measure("GET /v1/settings", () => call("/v1/settings", { key: org.testKey }), 200);

    console.log(
      [
        "| Request | D1 statements | D1 batches | Durable Object calls | R2 | Sequential round trips |",
        "| --- | --- | --- | --- | --- | --- |",
        ...rows.map(
          ({ route, trips: t }) => `| \`${route}\` | ${t.d1Statements} | ${t.d1Batches} | ${t.durableObjectCalls} | ${t.r2Operations} | ${t.sequential} |`,
        ),
      ].join("\n"),
    );
    for (const { route, trips } of rows) console.log(route, trips.log.join(" → "));

    for (const read of [me, getSession, listProofs, listTemplates, getSettings]) expect(read.sequential).toBeLessThanOrEqual(2);
    for (const creation of [testSession, liveSession]) expect(creation.sequential).toBeLessThanOrEqual(4);
  });

  it("a creation refused by the rate limit, asked together with the idempotency record, leaves the key free", async () => {
    const org = await createOrganization();
    // A write costs 2: one creation uses this key's whole minute.
    const small = await createKey(org.id, { mode: "test", rate_limit_per_minute: 2 });
    expect((await createSession(small.key, baseSession())).status).toBe(201);
    const body = baseSession();
    const refused = await createSession(small.key, body, "refused-by-rate-0001");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
    // Keys are shared by the organization's keys of one mode: another key runs it, nothing was stored.
    const retried = await createSession(org.testKey, body, "refused-by-rate-0001");
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
  });
});
