import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { admin } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { giveWriteShard, shardBindings } from "./support/write-shards.ts";
import { type ApiAccount, apiAccountName } from "../../src/durable/api-account.ts";

/**
 * The live account object decides one balance at a time for an organization with write shards (docs/adr/0070
 * point 4). A decision waiting on a D1 that never answers must not hold every later one for ever: past its limit
 * the object is reset and the next creation is decided by a new instance.
 */
describe("a hung balance decision", () => {
  it("resets the account object, so the organization's next live creation is decided", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 3 });
    await giveWriteShard(org.id, "01");
    const liveKey = (await createKey(org.id, { mode: "live", rate_limit_per_minute: 1000 })).key;
    const account = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(apiAccountName({ organizationId: org.id, mode: "live" })));
    await runInDurableObject(account, (instance: ApiAccount) => {
      instance.hungDecisionMs = 300;
    });

    // Shard 01's batches (the insert) never answer while this first creation runs.
    const real = shardBindings.DB_01;
    let hang = true;
    shardBindings.DB_01 = new Proxy(real, {
      get(target, property) {
        if (property === "batch" && hang) return () => new Promise(() => {});
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    try {
      const hung = await createSession(liveKey, baseSession());
      expect(hung.status).toBeGreaterThanOrEqual(500);
    } finally {
      hang = false;
      shardBindings.DB_01 = real;
    }

    const next = await createSession(liveKey, baseSession());
    expect(next.status).toBe(201);
    expect(next.body.id).toMatch(/^cps_01/);
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body).toEqual({ balance: 3, available: 2 });
  });
});
