import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { createKey } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { openEveryShard, SHARD_BINDING, shardBindings as bindings, type TestShard as Shard } from "./support/write-shards.ts";

/**
 * Forger session 9: write shards (docs/adr/0070). An integrator of another organization, an anonymous client, a
 * client racing requests and an operator making a mistake, against an organization writing past its home shard.
 * Every test states the safe behaviour; the attacks that succeeded are in the session's findings with their fix.
 */
openEveryShard();

/** An organization living on `home`, with a test and a live key made before any write shard. */
async function organizationOn(home: Shard, balance = 0) {
  const created = await admin("/admin/v1/organizations", { name: `Forger ${crypto.randomUUID()}`, shard: home });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (balance > 0) expect((await admin(`/admin/v1/organizations/${id}/balance`, { amount: balance, reason: "forger" })).status).toBe(200);
  const testKey = (await createKey(id, { mode: "test", rate_limit_per_minute: 1000 })).key;
  const liveKey = (await createKey(id, { mode: "live", rate_limit_per_minute: 1000 })).key;
  return { id, testKey, liveKey };
}

const addWriteShard = (organizationId: string, body: unknown) => admin(`/admin/v1/organizations/${organizationId}/write-shards`, body);

/** A key made now: its caller is read from D1 with the current list of shards, not from an isolate's cache. */
const freshKey = async (organizationId: string, mode: "test" | "live") => (await createKey(organizationId, { mode, rate_limit_per_minute: 1000 })).key;

/** Uses a key once, so that this isolate caches its caller (and its list of shards) for 10 seconds. */
async function cacheCaller(key: string) {
  expect((await callJson("/v1/proofs?limit=1", { key })).status).toBe(200);
}

async function rowsIn(table: string, where: string, value: string): Promise<Record<Shard, number>> {
  const shards = Object.keys(SHARD_BINDING) as Shard[];
  const counts = await Promise.all(
    shards.map((shard) => bindings[SHARD_BINDING[shard]].prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where} = ?`).bind(value).first<{ n: number }>()),
  );
  return Object.fromEntries(shards.map((shard, index) => [shard, counts[index]?.n ?? 0])) as Record<Shard, number>;
}

const total = (counts: Record<Shard, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);

describe("attacks refused (regression)", () => {
  it("another organization on the write shard never reads, lists or hears of the organization's rows there", async () => {
    const writer = await organizationOn("00");
    expect((await addWriteShard(writer.id, { shard: "01" })).status).toBe(200);
    const writerKey = await freshKey(writer.id, "test");
    const neighbour = await organizationOn("01");

    const created = await createSession(writerKey, baseSession());
    expect(created.body.id).toMatch(/^cps_01/);
    const token = tokenOf(created.body.capture_url);
    await uploadPhoto(token);
    const done = await captureCall(token, "/complete", { body: {} });
    expect(done.status).toBe(200);
    const proofId = done.body.proof_id as string;

    expect((await callJson(`/v1/capture-sessions/${created.body.id}`, { key: neighbour.testKey })).body.code).toBe("capture_session_not_found");
    expect((await callJson(`/v1/proofs/${proofId}`, { key: neighbour.testKey })).body.code).toBe("proof_not_found");
    const proofs = await callJson("/v1/proofs?limit=100", { key: neighbour.testKey });
    expect(proofs.body.data).toEqual([]);
    const events = await callJson("/v1/events?limit=100", { key: neighbour.testKey });
    expect(events.body.data).toEqual([]);
  });

  it("an after never pairs with a before of another organization, on a shard both write to", async () => {
    const writer = await organizationOn("00", 3);
    expect((await addWriteShard(writer.id, { shard: "01" })).status).toBe(200);
    const neighbour = await organizationOn("01");
    const theirs = await createSession(neighbour.testKey, baseSession());
    const token = tokenOf(theirs.body.capture_url);
    await uploadPhoto(token);
    const done = await captureCall(token, "/complete", { body: {} });
    await bindings.DB_01.prepare("UPDATE proofs SET status = 'sealed', holds_reservation = 0 WHERE id = ?").bind(done.body.proof_id).run();
    const reference = (await callJson(`/v1/proofs/${done.body.proof_id}`, { key: neighbour.testKey })).body.external_reference as string;

    const writerKey = await freshKey(writer.id, "test");
    const after = await createSession(writerKey, { external_reference: reference, party: "provider", compare_to: done.body.proof_id });
    expect(after.body).toMatchObject({ status: 422, code: "compare_to_not_found", field: "/compare_to" });
  });

  it("the operator's add-write-shard refuses junk, home, an unknown or closed shard, never 5xx, and never lists a shard without its stub", async () => {
    const org = await organizationOn("01");
    const refused: [unknown, number, string][] = [
      [{ shard: "01" }, 409, "shard_already_in_organization"],
      [{ shard: "03" }, 422, "shard_not_open"],
      [{ shard: "zz" }, 422, "shard_not_open"],
      [{ shard: "0" }, 422, "validation_failed"],
      [{ shard: "00 " }, 422, "validation_failed"],
      [{ shard: "../" }, 422, "validation_failed"],
      [{ shard: "0\u0000" }, 422, "validation_failed"],
      [{ shard: ["02"] }, 422, "validation_failed"],
      [{ shard: { "02": true } }, 422, "validation_failed"],
      [{ shard: "02", organization_id: "org_00x" }, 422, "validation_failed"],
      [null, 422, "validation_failed"],
    ];
    for (const [body, status, code] of refused) {
      const response = await addWriteShard(org.id, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.code, JSON.stringify(body)).toBe(code);
    }
    for (const id of ["org_01%00", "org_01'--", "ORG_01AAAAAAAAAAAAAAAAAAAAAA", `org_..${"a".repeat(20)}`, "%F0%9F%92%A9", "org_"]) {
      const response = await addWriteShard(id, { shard: "02" });
      expect(response.status, id).toBeGreaterThanOrEqual(400);
      expect(response.status, id).toBeLessThan(500);
    }
    env.OPEN_SHARDS = "00,01";
    try {
      expect((await addWriteShard(org.id, { shard: "02" })).body.code).toBe("shard_not_open");
    } finally {
      env.OPEN_SHARDS = "00,01,02";
    }
    // Nothing was written by any refusal.
    expect(total(await rowsIn("organization_write_shards", "organization_id", org.id))).toBe(0);
    expect(await rowsIn("organizations", "id", org.id)).toEqual({ "00": 0, "01": 1, "02": 0 });

    // Concurrent adds of two shards: whatever the list ends as, each shard it names holds the stub.
    await Promise.all([addWriteShard(org.id, { shard: "02" }), addWriteShard(org.id, { shard: "00" })]);
    const listed = await bindings.DB_01.prepare("SELECT shard FROM organization_write_shards WHERE organization_id = ?").bind(org.id).all<{ shard: Shard }>();
    const stubs = await rowsIn("organizations", "id", org.id);
    for (const { shard } of listed.results) expect(stubs[shard], shard).toBe(1);
  });

  it("racing live creations of an organization with write shards never promise more than its balance", async () => {
    const org = await organizationOn("00", 3);
    await cacheCaller(org.liveKey);
    expect((await addWriteShard(org.id, { shard: "01" })).status).toBe(200);
    const fresh = await freshKey(org.id, "live");
    // A stale isolate (cached before the switch) and a fresh one, at once, with a debit racing them.
    const [responses, debit] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, (_, index) => createSession(index % 2 === 0 ? org.liveKey : fresh, baseSession()))),
      admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -1, reason: "race" }),
    ]);
    const created = responses.filter((response) => response.status === 201).length;
    expect(created + (debit.status === 200 ? 1 : 0)).toBe(3);
    const summary = (await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body;
    expect(summary.available).toBe(0);
  });

  it("the public capture page of a session in a write shard shows the organization's theme, read home", async () => {
    const org = await organizationOn("00");
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Brand", primary_color: "#123456", locale: "en" } });
    expect(theme.body.is_default).toBe(true);
    expect((await addWriteShard(org.id, { shard: "01" })).status).toBe(200);
    const away = await createSession(await freshKey(org.id, "test"), baseSession());
    expect(away.body.id).toMatch(/^cps_01/);
    const page = await captureCall(tokenOf(away.body.capture_url), "/session");
    expect(page.status).toBe(200);
    expect(page.body.theme.primary_color).toBe("#123456");
  });

  it("a proof of a session in a write shard has an id naming that shard, and its owner reads and lists it", async () => {
    const org = await organizationOn("00");
    expect((await addWriteShard(org.id, { shard: "01" })).status).toBe(200);
    const key = await freshKey(org.id, "test");
    const created = await createSession(key, baseSession());
    expect(created.body.id).toMatch(/^cps_01/);
    const token = tokenOf(created.body.capture_url);
    await uploadPhoto(token);
    const done = await captureCall(token, "/complete", { body: {} });
    expect(done.body.proof_id).toMatch(/^prf_01/);
    expect((await callJson(`/v1/proofs/${done.body.proof_id}`, { key })).status).toBe(200);
    expect((await callJson("/v1/proofs?limit=100", { key })).body.data.map((proof: { id: string }) => proof.id)).toEqual([done.body.proof_id]);
  });

  it("a live creation's balance decision waiting on D1 holds none of the organization's other requests", async () => {
    const org = await organizationOn("00", 5);
    expect((await addWriteShard(org.id, { shard: "01" })).status).toBe(200);
    const liveKey = await freshKey(org.id, "live");
    await cacheCaller(liveKey);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let gated = 0;
    const saved = bindings.DB_01;
    bindings.DB_01 = new Proxy(saved, {
      get(target, property) {
        if (property === "batch") {
          return async (...args: Parameters<D1Database["batch"]>) => {
            gated += 1;
            await gate;
            return target.batch(...args);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    try {
      const creation = createSession(liveKey, baseSession());
      for (let waited = 0; gated === 0 && waited < 100; waited += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(gated).toBe(1);
      const started = Date.now();
      const read = callJson("/v1/proofs?limit=1", { key: liveKey }).then((response) => ({ status: response.status, ms: Date.now() - started }));
      const outcome = await Promise.race([read, new Promise<"blocked">((resolve) => setTimeout(() => resolve("blocked"), 5000))]);
      open();
      expect((await creation).status).toBe(201);
      expect(outcome).not.toBe("blocked");
    } finally {
      open();
      bindings.DB_01 = saved;
    }
  });

  it("webhooks: the writer's write-shard events never reach the endpoint of an organization living on that shard", async () => {
    const writer = await organizationOn("00");
    expect((await addWriteShard(writer.id, { shard: "01" })).status).toBe(200);
    const neighbour = await organizationOn("01");
    const endpoint = await callJson("/v1/webhook-endpoints", {
      key: neighbour.testKey,
      body: { url: "https://hooks.example.com/neighbour", events: ["capture_session.completed", "proof.sealed"] },
    });
    expect(endpoint.status).toBe(201);
    const deliveriesToNeighbour = async () =>
      (await bindings.DB_01.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?").bind(endpoint.body.id).first<{ n: number }>())!.n;

    const theirs = await createSession(await freshKey(writer.id, "test"), baseSession());
    expect(theirs.body.id).toMatch(/^cps_01/);
    const token = tokenOf(theirs.body.capture_url);
    await uploadPhoto(token);
    expect((await captureCall(token, "/complete", { body: {} })).status).toBe(200);
    // The neighbour's own completion on 01, made after: its delivery is there once the writer's had its chance.
    const own = await createSession(neighbour.testKey, baseSession());
    const ownToken = tokenOf(own.body.capture_url);
    await uploadPhoto(ownToken);
    expect((await captureCall(ownToken, "/complete", { body: {} })).status).toBe(200);
    for (let waited = 0; (await deliveriesToNeighbour()) === 0 && waited < 50; waited += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const delivered = await bindings.DB_01.prepare("SELECT organization_id, request_body FROM webhook_deliveries WHERE endpoint_id = ?")
      .bind(endpoint.body.id)
      .all<{ organization_id: string; request_body: string }>();
    expect(delivered.results.length).toBe(1);
    expect(delivered.results.every((row) => row.organization_id === neighbour.id)).toBe(true);
    expect(delivered.results[0]!.request_body).toContain(own.body.id);
    expect(total(await rowsIn("webhook_deliveries", "organization_id", writer.id))).toBe(0);
  });

  it("junk compare_to, ids, cursors and filters of a caller with write shards answer 4xx, never 5xx", async () => {
    const org = await organizationOn("00");
    expect((await addWriteShard(org.id, { shard: "01" })).status).toBe(200);
    const key = await freshKey(org.id, "test");
    const junk = [
      "x",
      "prf_",
      "prf_01",
      `prf_01${"a".repeat(20)}`,
      `prf_01${"A".repeat(20)}`,
      `prf_0１${"a".repeat(20)}`,
      `prf_01${"a".repeat(200)}`,
      "prf_01%00aaaaaaaaaaaaaaaaaaaa",
      "../../etc",
      `cps_01${"a".repeat(20)}`,
      "",
    ];
    for (const id of junk) {
      const created = await createSession(key, { ...baseSession(), compare_to: id });
      expect(created.status, `compare_to ${id}`).toBeLessThan(500);
      expect(created.status, `compare_to ${id}`).not.toBe(201);
      for (const path of [`/v1/proofs/${encodeURIComponent(id)}`, `/v1/capture-sessions/${encodeURIComponent(id)}`]) {
        const read = await callJson(path, { key });
        expect(read.status, path).toBeLessThan(500);
      }
    }
    for (const query of ["cursor=abc.def", "cursor=", "limit=0", "limit=101", `external_reference=${"r".repeat(5000)}`, "type=nope"]) {
      for (const list of ["/v1/proofs", "/v1/events"]) {
        const read = await callJson(`${list}?${query}`, { key });
        expect(read.status, `${list}?${query}`).toBeLessThan(500);
      }
    }
  });

  it("a key cached before the switch reads a session another isolate just created in the write shard (W5, 8a0dfd0)", async () => {
    const org = await organizationOn("00");
    await cacheCaller(org.testKey);
    expect((await addWriteShard(org.id, { shard: "01" })).status).toBe(200);
    const created = await createSession(await freshKey(org.id, "test"), baseSession());
    expect(created.body.id).toMatch(/^cps_01/);
    expect((await callJson(`/v1/capture-sessions/${created.body.id}`, { key: org.testKey })).status).toBe(200);
    // Another organization's key on the same isolate, its list re-read on that miss, still finds nothing.
    const stranger = await organizationOn("00");
    await cacheCaller(stranger.testKey);
    expect((await callJson(`/v1/capture-sessions/${created.body.id}`, { key: stranger.testKey })).body.code).toBe("capture_session_not_found");
  });
});
