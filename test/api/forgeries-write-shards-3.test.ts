import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { type ApiAccount, apiAccountName } from "../../src/durable/api-account.ts";
import { admin } from "./support/client.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { addWriteShard, balanceOf, liveKeyOf, openEveryShard, organizationOn } from "./support/write-shards.ts";

/**
 * Forger session 9, round 3: the deadline each balance decision of the live account object carries (docs/adr/0070
 * point 4, 817d116). Every test states the safe behaviour; attacks that succeed are in the round's findings
 * (/tmp/team/forger-findings-9c.md) with their fix and their test.
 */
const bindings = env as unknown as Record<"DB" | "DB_01", D1Database>;
openEveryShard();
const accountOf = (organizationId: string) => env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(apiAccountName({ organizationId, mode: "live" })));
const shortenDecisions = (organizationId: string, hungDecisionMs: number) =>
  runInDurableObject(accountOf(organizationId), (instance: ApiAccount) => {
    instance.hungDecisionMs = hungDecisionMs;
  });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Recorded = { query: string; values: unknown[] };

/**
 * The batches made meanwhile on the binding `name` that `slow` picks never answer; their statements are recorded, to
 * be sent to D1 later as a slow D1 runs what it had received, even from an object reset since.
 */
function slowBatches(name: "DB" | "DB_01", slow: (queries: string[]) => boolean): { sent: Recorded[][]; restore: () => D1Database } {
  const real = bindings[name];
  const sent: Recorded[][] = [];
  const recording = (statement: D1PreparedStatement, query: string, values: unknown[]): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === "bind") return (...bound: unknown[]) => recording(target.bind(...bound), query, bound);
        if (property === "__recorded") return { query, values };
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  bindings[name] = new Proxy(real, {
    get(target, property) {
      if (property === "prepare") return (query: string) => recording(real.prepare(query), query, []);
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) => {
          const recorded = statements.map((statement) => (statement as unknown as { __recorded: Recorded }).__recorded);
          if (!slow(recorded.map(({ query }) => query))) return real.batch(recorded.map(({ query, values }) => real.prepare(query).bind(...values)));
          sent.push(recorded);
          return new Promise(() => {});
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    sent,
    restore: () => {
      bindings[name] = real;
      return real;
    },
  };
}

/** Sends what a slow D1 had received, now. */
async function runLate(real: D1Database, sent: Recorded[][]): Promise<void> {
  expect(sent.length).toBeGreaterThan(0);
  for (const batch of sent) await real.batch(batch.map(({ query, values }) => real.prepare(query).bind(...values)));
}

/** A statement of the account object's decision: it carries the deadline, compared with D1's clock. */
const decisionStatement = (queries: string[]) => queries.some((query) => query.includes("strftime"));

describe("attacks refused (regression)", () => {
  it("a debit decided by the account object and run by D1 past its deadline debits nothing (adjustment and balance alike)", async () => {
    const org = await organizationOn("00", 1);
    expect((await addWriteShard(org, "01")).status).toBe(200);
    await shortenDecisions(org, 300);

    const slow = slowBatches("DB", decisionStatement);
    let real: D1Database;
    try {
      const debit = await admin(`/admin/v1/organizations/${org}/balance`, { amount: -1, reason: "slow debit" });
      expect(debit.status).toBeGreaterThanOrEqual(500);
    } finally {
      real = slow.restore();
    }
    // The new instance promises the unit the slow debit also counted.
    const created = await createSession(await liveKeyOf(org), baseSession());
    expect(created.status).toBe(201);
    await runLate(real, slow.sent);
    expect(await balanceOf(org)).toEqual({ balance: 1, available: 0 });
    const adjustments = await real
      .prepare("SELECT COUNT(*) AS n FROM balance_adjustments WHERE organization_id = ? AND reason = 'slow debit'")
      .bind(org)
      .first<{ n: number }>();
    expect(adjustments?.n).toBe(0);
  });

  it("a creation whose snapshot was deleted meanwhile, retried with the snapshot, carries the deadline too", async () => {
    const org = await organizationOn("00", 2);
    expect((await addWriteShard(org, "01")).status).toBe(200);
    const liveKey = await liveKeyOf(org);
    // The first session stores the snapshot in 01: this isolate now inserts the next one without it, first.
    const first = await createSession(liveKey, baseSession());
    expect(first.body.id).toMatch(/^cps_01/);
    await bindings.DB_01.prepare("DELETE FROM template_snapshots").run();
    await shortenDecisions(org, 300);

    // The insert without the snapshot finds nothing; the batch storing it with the session is the slow one.
    const slow = slowBatches("DB_01", (queries) => decisionStatement(queries) && queries.some((query) => query.includes("template_snapshots (sha256")));
    let real: D1Database;
    try {
      const second = await createSession(liveKey, baseSession());
      expect(second.status).toBeGreaterThanOrEqual(500);
    } finally {
      real = slow.restore();
    }
    expect((await admin(`/admin/v1/organizations/${org}/balance`, { amount: -1, reason: "forger debit" })).status).toBe(200);
    await runLate(real, slow.sent);
    expect(await balanceOf(org)).toEqual({ balance: 1, available: 0 });
  });

  it("decisions queued behind a hung one fail with its reset and decide nothing, then the next is decided", async () => {
    const org = await organizationOn("00", 2);
    expect((await addWriteShard(org, "01")).status).toBe(200);
    const liveKey = await liveKeyOf(org);
    await shortenDecisions(org, 300);

    const slow = slowBatches("DB_01", decisionStatement);
    let real: D1Database;
    try {
      const hung = createSession(liveKey, baseSession()).then(
        (answer) => answer.status,
        () => 500,
      );
      for (let waited = 0; slow.sent.length === 0 && waited < 200; waited += 1) await pause(10);
      const queued = await Promise.all([
        admin(`/admin/v1/organizations/${org}/balance`, { amount: -1, reason: "queued debit" }).then((answer) => answer.status),
        createSession(liveKey, baseSession()).then((answer) => answer.status),
      ]);
      expect(await hung).toBeGreaterThanOrEqual(500);
      expect(queued.every((status) => status >= 500)).toBe(true);
    } finally {
      real = slow.restore();
    }
    await runLate(real, slow.sent);
    expect(await balanceOf(org)).toEqual({ balance: 2, available: 2 });
    expect((await createSession(liveKey, baseSession())).status).toBe(201);
  });
});

describe("an account object reset before its decision's deadline (Y1)", () => {
  it("makes the next instance wait until the statement sent before the reset (a deploy, an eviction) can no longer land", async () => {
    const org = await organizationOn("00", 1);
    expect((await addWriteShard(org, "01")).status).toBe(200);
    const liveKey = await liveKeyOf(org);
    await shortenDecisions(org, 3_000);

    const slow = slowBatches("DB_01", decisionStatement);
    let real: D1Database;
    const creation = createSession(liveKey, baseSession()).then(
      (answer) => answer.status,
      () => 500,
    );
    try {
      for (let waited = 0; slow.sent.length === 0 && waited < 200; waited += 1) await pause(10);
      expect(slow.sent.length).toBeGreaterThan(0);
      // The object is reset for a reason other than the hung timer: a deploy of new code resets every object
      // ("Durable Object reset because its code was updated"), as do an eviction and an exceeded memory limit.
      await runInDurableObject(accountOf(org), (_instance: ApiAccount, state) => state.abort("code updated")).catch(() => undefined);
      expect(await creation).toBeGreaterThanOrEqual(500);
    } finally {
      real = slow.restore();
    }
    // The new instance decides a debit of the one unit the slow insert also counted, well inside that insert's deadline.
    expect((await admin(`/admin/v1/organizations/${org}/balance`, { amount: -1, reason: "forger debit" })).status).toBe(200);
    await runLate(real, slow.sent);
    expect((await balanceOf(org)).available).toBeGreaterThanOrEqual(0);
  });
});
