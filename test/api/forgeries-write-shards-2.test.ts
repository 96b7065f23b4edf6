import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createKey } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";

/**
 * Forger session 9, round 2: the fixes of round 1 (docs/adr/0070) and what it did not reach, for an organization
 * writing past its home shard. Every test states the safe behaviour; attacks that succeed are in the round's
 * findings (/tmp/team/forger-findings-9b.md) with their fix.
 */
const configuredOpenShards = env.OPEN_SHARDS;

beforeAll(() => {
  env.OPEN_SHARDS = "00,01,02";
});
afterAll(() => {
  env.OPEN_SHARDS = configuredOpenShards;
});

async function organizationOn(home: "00" | "01" | "02", balance = 0) {
  const created = await admin("/admin/v1/organizations", { name: `Forger ${crypto.randomUUID()}`, shard: home });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (balance > 0) expect((await admin(`/admin/v1/organizations/${id}/balance`, { amount: balance, reason: "forger" })).status).toBe(200);
  return id;
}

const addWriteShard = (organizationId: string, shard: string) => admin(`/admin/v1/organizations/${organizationId}/write-shards`, { shard });
const liveKeyOf = async (organizationId: string) => (await createKey(organizationId, { mode: "live", rate_limit_per_minute: 1000 })).key;
const balanceOf = async (organizationId: string) => (await admin(`/admin/v1/organizations/${organizationId}/balance`, { amount: 0, reason: "read" })).body;

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
