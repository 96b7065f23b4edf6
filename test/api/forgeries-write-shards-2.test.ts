import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { type ApiAccount, apiAccountName } from "../../src/durable/api-account.ts";
import { admin, callJson } from "./support/client.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { addWriteShard, balanceOf, liveKeyOf, openEveryShard, organizationOn } from "./support/write-shards.ts";

/**
 * Forger session 9, round 2: the fixes of round 1 (docs/adr/0070) and what it did not reach, for an organization
 * writing past its home shard. Every test states the safe behaviour; attacks that succeed are in the round's
 * findings (/tmp/team/forger-findings-9b.md) with their fix.
 */
const bindings = env as unknown as Record<"DB_01", D1Database>;
openEveryShard();

describe("attacks refused (regression)", () => {
  it("a key cached before the switch cannot spend the unit a write-shard session holds, by creation or by debit", async () => {
    const org = await organizationOn("00", 1);
    const staleKey = await liveKeyOf(org);
    expect((await callJson("/v1/proofs?limit=1", { key: staleKey })).status).toBe(200);
    expect((await addWriteShard(org, "01")).status).toBe(200);
    const first = await createSession(await liveKeyOf(org), baseSession());
    expect(first.body.id).toMatch(/^cps_01/);

    const second = await createSession(staleKey, baseSession());
    expect(second.body).toMatchObject({ status: 402, code: "insufficient_balance" });
    const debit = await admin(`/admin/v1/organizations/${org}/balance`, { amount: -1, reason: "forger debit" });
    expect(debit.status).not.toBe(200);
    expect(await balanceOf(org)).toEqual({ balance: 1, available: 0 });
  });
});

describe("a late statement of a reset account object (X1)", () => {
  it("decides nothing when D1 runs it after its deadline: the available balance never goes negative", async () => {
    const org = await organizationOn("00", 1);
    expect((await addWriteShard(org, "01")).status).toBe(200);
    const liveKey = await liveKeyOf(org);
    const account = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(apiAccountName({ organizationId: org, mode: "live" })));
    await runInDurableObject(account, (instance: ApiAccount) => {
      instance.hungDecisionMs = 300;
    });

    // Shard 01's batches are slow, not lost: D1 runs what it was sent even after the object that sent it is reset.
    // The object's batch never answers here; its statements are recorded and sent to D1 afterwards, as D1 would.
    const real = bindings.DB_01;
    const sent: { query: string; values: unknown[] }[][] = [];
    const recording = (statement: D1PreparedStatement, query: string, values: unknown[]): D1PreparedStatement =>
      new Proxy(statement, {
        get(target, property) {
          if (property === "bind") return (...bound: unknown[]) => recording(target.bind(...bound), query, bound);
          if (property === "__recorded") return { query, values };
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    bindings.DB_01 = new Proxy(real, {
      get(target, property) {
        if (property === "prepare") return (query: string) => recording(real.prepare(query), query, []);
        if (property === "batch") {
          return (statements: D1PreparedStatement[]) => {
            sent.push(statements.map((statement) => (statement as unknown as { __recorded: { query: string; values: unknown[] } }).__recorded));
            return new Promise(() => {});
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    try {
      const slow = await createSession(liveKey, baseSession());
      expect(slow.status).toBeGreaterThanOrEqual(500);
    } finally {
      bindings.DB_01 = real;
    }
    // The new instance decides a debit of the one unit the slow insert also counted.
    expect((await admin(`/admin/v1/organizations/${org}/balance`, { amount: -1, reason: "forger debit" })).status).toBe(200);
    expect(sent.length).toBeGreaterThan(0);
    for (const batch of sent) await real.batch(batch.map(({ query, values }) => real.prepare(query).bind(...values)));
    const summary = await balanceOf(org);
    expect(summary.available).toBeGreaterThanOrEqual(0);
  });
});
