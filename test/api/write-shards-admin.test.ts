import { describe, expect, it, vi } from "vitest";
import { env, exports } from "cloudflare:workers";
import { AdminClient } from "../../scripts/lib/admin-client.ts";
import { admin, callJson } from "./support/client.ts";
import { openEveryShard, type ShardBindings, shardBindings as bindings } from "./support/write-shards.ts";

/**
 * The operator's `add-write-shard` (docs/adr/0070, docs/operations.md "D1 shards"): an organization that
 * outgrew its home shard gets a write shard, its stub organization row written there before its list row
 * home. The tests' configuration keeps new organizations on 00 (vitest.config.ts); this file opens all three.
 */
openEveryShard();

async function organizationOn(shard: string, name = `Grows on ${shard}`): Promise<string> {
  const created = await admin("/admin/v1/organizations", { name, shard });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const addWriteShard = (organizationId: string, body: unknown) => admin(`/admin/v1/organizations/${organizationId}/write-shards`, body);

async function stubRow(binding: keyof ShardBindings, organizationId: string) {
  return bindings[binding].prepare("SELECT id, name, balance FROM organizations WHERE id = ?").bind(organizationId).first();
}

async function listRows(binding: keyof ShardBindings, organizationId: string) {
  const { results } = await bindings[binding]
    .prepare("SELECT shard, from_at FROM organization_write_shards WHERE organization_id = ? ORDER BY from_at, shard")
    .bind(organizationId)
    .all<{ shard: string; from_at: string }>();
  return results;
}

/** Runs `work` with a D1 binding refusing every statement, as a database that failed mid-call would. */
async function withShardRefused<T>(name: keyof ShardBindings, work: () => Promise<T>): Promise<T> {
  const saved = bindings[name];
  bindings[name] = new Proxy(saved, {
    get(target, property) {
      if (property === "prepare" || property === "batch" || property === "exec") {
        return () => {
          throw new Error(`${name} refused`);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  try {
    return await work();
  } finally {
    bindings[name] = saved;
  }
}

describe("POST /admin/v1/organizations/{id}/write-shards", () => {
  it("writes the stub organization row in the write shard and the list row home, and answers the organization's shards", async () => {
    const organizationId = await organizationOn("00", "Acme Growing");
    const before = Date.now();
    const added = await addWriteShard(organizationId, { shard: "01" });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ id: organizationId, shards: ["00", "01"], write_shard: "01" });
    // The stub: same id and name, a balance of 0 (the organization's balance is the sum of its rows).
    expect(await stubRow("DB_01", organizationId)).toEqual({ id: organizationId, name: "Acme Growing", balance: 0 });
    expect(await stubRow("DB_02", organizationId)).toBeNull();
    // The list row lives home only, dated now.
    const [row, ...others] = await listRows("DB", organizationId);
    expect(others).toEqual([]);
    expect(row?.shard).toBe("01");
    expect(Date.parse(row!.from_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(row!.from_at)).toBeLessThanOrEqual(Date.now());
    expect(await listRows("DB_01", organizationId)).toEqual([]);

    // A later period: the newest write shard is last, and takes the new sessions.
    const next = await addWriteShard(organizationId, { shard: "02" });
    expect(next.body).toEqual({ id: organizationId, shards: ["00", "01", "02"], write_shard: "02" });
    expect(await stubRow("DB_02", organizationId)).toEqual({ id: organizationId, name: "Acme Growing", balance: 0 });
    expect((await listRows("DB", organizationId)).map((listed) => listed.shard)).toEqual(["01", "02"]);
  });

  it("answers a retry of the latest write shard as the first time, writing nothing more", async () => {
    const organizationId = await organizationOn("01");
    const first = await addWriteShard(organizationId, { shard: "02" });
    expect(first.status).toBe(200);
    const listed = await listRows("DB_01", organizationId);
    const retry = await addWriteShard(organizationId, { shard: "02" });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.body).toEqual({ id: organizationId, shards: ["01", "02"], write_shard: "02" });
    expect(await listRows("DB_01", organizationId)).toEqual(listed);
    const stubs = await bindings.DB_02.prepare("SELECT COUNT(*) AS n FROM organizations WHERE id = ?").bind(organizationId).first<{ n: number }>();
    expect(stubs?.n).toBe(1);
  });

  it("writes the stub before the list row: a failed stub leaves no list row, and the retry completes both", async () => {
    const organizationId = await organizationOn("00");
    const failed = await withShardRefused("DB_01", () => addWriteShard(organizationId, { shard: "01" }));
    expect(failed.status).toBe(500);
    // No key of the organization may mint a session for 01 while 01 lacks the row its foreign keys need.
    expect(await listRows("DB", organizationId)).toEqual([]);
    const retried = await addWriteShard(organizationId, { shard: "01" });
    expect(retried.body).toEqual({ id: organizationId, shards: ["00", "01"], write_shard: "01" });
    expect(await stubRow("DB_01", organizationId)).not.toBeNull();
    expect((await listRows("DB", organizationId)).map((listed) => listed.shard)).toEqual(["01"]);
  });

  it("finishes a call that wrote the stub and failed before the list row", async () => {
    const organizationId = await organizationOn("00", "Half done");
    const now = new Date().toISOString();
    await bindings.DB_02.prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES (?, 'Half done', 0, ?, ?)")
      .bind(organizationId, now, now)
      .run();
    const added = await addWriteShard(organizationId, { shard: "02" });
    expect(added.body).toEqual({ id: organizationId, shards: ["00", "02"], write_shard: "02" });
    expect((await listRows("DB", organizationId)).map((listed) => listed.shard)).toEqual(["02"]);
  });

  it("refuses the home shard and an earlier write shard with 409 shard_already_in_organization, writing nothing", async () => {
    const organizationId = await organizationOn("00");
    const home = await addWriteShard(organizationId, { shard: "00" });
    expect(home.status).toBe(409);
    expect(home.body).toMatchObject({ status: 409, code: "shard_already_in_organization", field: "/shard" });
    expect(await listRows("DB", organizationId)).toEqual([]);

    await addWriteShard(organizationId, { shard: "01" });
    await addWriteShard(organizationId, { shard: "02" });
    const earlier = await addWriteShard(organizationId, { shard: "01" });
    expect(earlier.status).toBe(409);
    expect(earlier.body).toMatchObject({ code: "shard_already_in_organization", field: "/shard" });
    expect((await listRows("DB", organizationId)).map((listed) => listed.shard)).toEqual(["01", "02"]);
  });

  it("refuses a shard that is unknown or closed with 422 shard_not_open, writing no stub", async () => {
    const organizationId = await organizationOn("00");
    for (const shard of ["03", "zz"]) {
      const response = await addWriteShard(organizationId, { shard });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ code: "shard_not_open", field: "/shard" });
    }
    // In SHARDS but closed: its last 30 % is the growth of the organizations already on it.
    env.OPEN_SHARDS = "00,01";
    try {
      const closed = await addWriteShard(organizationId, { shard: "02" });
      expect(closed.status).toBe(422);
      expect(closed.body).toMatchObject({ code: "shard_not_open", field: "/shard" });
    } finally {
      env.OPEN_SHARDS = "00,01,02";
    }
    expect(await stubRow("DB_02", organizationId)).toBeNull();
    expect(await listRows("DB", organizationId)).toEqual([]);
  });

  it("answers an unknown organization 404 not_found, in its shard or naming none", async () => {
    const organizationId = await organizationOn("01");
    const body = organizationId.slice("org_01".length);
    for (const unknown of [`org_01${"0".repeat(20)}`, `org_zz${body}`, `org_02${body}`, `org_${"1".repeat(20)}`]) {
      const response = await addWriteShard(unknown, { shard: "02" });
      expect(response.status, unknown).toBe(404);
      expect(response.body.code).toBe("not_found");
    }
    expect(await stubRow("DB_02", `org_02${body}`)).toBeNull();
  });

  it("never answers 5xx to a bad body, id or token", async () => {
    const organizationId = await organizationOn("00");
    for (const body of [{}, { shard: "1" }, { shard: "001" }, { shard: "AB" }, { shard: 1 }, { shard: null }, { shard: "01", extra: true }, [], "01"]) {
      const response = await addWriteShard(organizationId, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.code).toBe("validation_failed");
    }
    const malformed = await callJson(`/admin/v1/organizations/${organizationId}/write-shards`, {
      key: env.ADMIN_TOKEN,
      rawBody: "{",
      headers: { "Content-Type": "application/json" },
    });
    expect(malformed.body.code).toBe("invalid_json");
    expect((await addWriteShard("x".repeat(81), { shard: "01" })).status).toBe(422);
    expect((await addWriteShard("not-an-id", { shard: "01" })).status).toBe(404);
    const unauthenticated = await callJson(`/admin/v1/organizations/${organizationId}/write-shards`, { key: "wrong-token", body: { shard: "01" } });
    expect(unauthenticated.status).toBe(401);
    expect(await listRows("DB", organizationId)).toEqual([]);
  });

  it("npm run admin's add-write-shard answers the shards and names a refusal", async () => {
    // The CLI's client, its HTTP calls sent to this Worker.
    const fetched = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => exports.default.fetch(new Request(input, init)));
    try {
      const client = new AdminClient("http://localhost:8787", env.ADMIN_TOKEN!);
      const organizationId = await organizationOn("00");
      expect(await client.addWriteShard(organizationId, "02")).toEqual({ id: organizationId, shards: ["00", "02"], write_shard: "02" });
      await expect(client.addWriteShard(organizationId, "00")).rejects.toThrow(/409 shard_already_in_organization .*\(\/shard\)/);
    } finally {
      fetched.mockRestore();
    }
  });
});
