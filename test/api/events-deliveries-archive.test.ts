import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env.ts";
import { shardBinding, type ShardCode } from "../../src/db/shards.ts";
import { workerContext } from "../../src/domain/context.ts";
import { deleteWebhookDeliveryBodies } from "../../src/sweeps/delete-webhook-delivery-bodies.ts";
import { ARCHIVE_WRITES_PER_KIND, archiveEventsAndDeliveries } from "../../src/sweeps/archive-events-and-deliveries.ts";
import { DELIVERIES_PER_ROUND } from "../../src/sweeps/archive-round-sizes.ts";
import { admin, callJson } from "./support/client.ts";

/**
 * Events and finished webhook deliveries leave D1 for the R2 archive after 30 days (docs/adr/0067), on every
 * shard, and every route reading them answers the same JSON as before they moved.
 */

const SHARDS = ["00", "01", "02"] as const;
const shardEnv = env as unknown as Env;
const binding = (shard: ShardCode) => shardBinding(shardEnv, shard)!;
const configuredOpenShards = env.OPEN_SHARDS;
beforeAll(() => {
  env.OPEN_SHARDS = "00,01,02";
});
afterAll(() => {
  env.OPEN_SHARDS = configuredOpenShards;
});
afterEach(() => {
  vi.restoreAllMocks();
});

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number, minutes = 0) => new Date(Date.now() - days * DAY - minutes * 60_000).toISOString();

/** An instant of the UTC day `days` ago: rows of one day share a chunk, whatever their type, endpoint or status. */
const at = (days: number, time: string) => `${daysAgo(days).slice(0, 10)}T${time}:00.000Z`;

async function organizationOn(shard: ShardCode) {
  const org = await admin("/admin/v1/organizations", { name: `Archive ${shard}`, shard });
  expect(org.status).toBe(201);
  // Room for every route read twice, before and after the move.
  const key = await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "test", rate_limit_per_minute: 1_000 });
  return { id: org.body.id as string, key: key.body.key as string };
}

const suffix = () => crypto.randomUUID().replaceAll("-", "").slice(0, 20);

async function insertEvent(shard: ShardCode, organizationId: string, type: string, createdAt: string, dispatched = true): Promise<string> {
  const id = `evt_${shard}${suffix()}`;
  await binding(shard)
    .prepare("INSERT INTO events (id, organization_id, mode, type, data, created_at, dispatched_at) VALUES (?, ?, 'test', ?, ?, ?, ?)")
    .bind(id, organizationId, type, JSON.stringify({ proof_id: `prf_${id}`, note: "é" }), createdAt, dispatched ? createdAt : null)
    .run();
  return id;
}

async function insertDelivery(shard: ShardCode, organizationId: string, endpointId: string, status: string, createdAt: string): Promise<string> {
  const id = `whd_${shard}${suffix()}`;
  await binding(shard).batch([
    binding(shard)
      .prepare(
        `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, event, status, attempts, request_body, response_status, response_body_start, failure_reason, created_at, updated_at)
         VALUES (?, ?, 'test', ?, ?, 'proof.sealed', ?, 2, '{"event":"proof.sealed"}', 500, 'oops', ?, ?, ?)`,
      )
      .bind(id, organizationId, endpointId, `evt_${suffix()}`, status, status === "abandoned" ? "http_500" : null, createdAt, createdAt),
    ...[1, 2].map((attempt) =>
      binding(shard)
        .prepare(
          "INSERT INTO webhook_attempts (id, delivery_id, attempt, webhook_id, started_at, duration_ms, response_status, response_body_start, failure_reason) VALUES (?, ?, ?, ?, ?, 12, 500, 'oops', 'http_500')",
        )
        .bind(`wha_${suffix()}`, id, attempt, `wh_${suffix()}`, createdAt),
    ),
  ]);
  return id;
}

/** What a client sees of an answer: its status and body, less the request's own id. */
async function seen(path: string, key: string, method?: string) {
  const { status, body } = await callJson(path, { key, method });
  delete body.request_id;
  return { status, body };
}

/** Every page of a list, followed by its cursors: the whole JSON a client reads. */
async function allPages(path: string, key: string, limit: number) {
  const pages: unknown[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const page: { status: number; body: { next_cursor: string | null } } = await callJson(
      `${path}${separator}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      { key },
    );
    expect(page.status).toBe(200);
    pages.push(page.body);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return pages;
}

const count = async (shard: ShardCode, table: string, organizationId: string) =>
  (await binding(shard)
    .prepare(
      table === "webhook_attempts"
        ? "SELECT COUNT(*) AS n FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE organization_id = ?)"
        : `SELECT COUNT(*) AS n FROM ${table} WHERE organization_id = ?`,
    )
    .bind(organizationId)
    .first<{ n: number }>())!.n;

/** An organization with old and young events and deliveries, and everything its routes answer about them. */
async function archiveScene(shard: ShardCode) {
  const org = await organizationOn(shard);
  const events = {
    old: [
      await insertEvent(shard, org.id, "proof.sealed", daysAgo(40)),
      await insertEvent(shard, org.id, "proof.failed", at(39, "08:00")),
      await insertEvent(shard, org.id, "proof.sealed", at(39, "09:00")),
      await insertEvent(shard, org.id, "capture_session.completed", daysAgo(37)),
    ],
    undispatched: await insertEvent(shard, org.id, "proof.failed", daysAgo(36), false),
    young: [await insertEvent(shard, org.id, "proof.sealed", daysAgo(2)), await insertEvent(shard, org.id, "proof.failed", daysAgo(1))],
  };
  const deliveries = {
    old: [
      await insertDelivery(shard, org.id, "whe_a", "succeeded", daysAgo(40)),
      await insertDelivery(shard, org.id, "whe_b", "abandoned", at(39, "08:00")),
      await insertDelivery(shard, org.id, "whe_a", "abandoned", at(39, "09:00")),
    ],
    stillRetrying: await insertDelivery(shard, org.id, "whe_b", "retrying", daysAgo(37)),
    young: [await insertDelivery(shard, org.id, "whe_a", "succeeded", daysAgo(2)), await insertDelivery(shard, org.id, "whe_b", "abandoned", daysAgo(1))],
  };
  // The bodies are emptied at 30 days as before; what moves to the archive is the delivery as it is then.
  await deleteWebhookDeliveryBodies(workerContext(shardEnv, shard), new Date());
  return { org, events, deliveries };
}

async function answers(scene: Awaited<ReturnType<typeof archiveScene>>) {
  const { key } = scene.org;
  const allDeliveries = [...scene.deliveries.old, scene.deliveries.stillRetrying, ...scene.deliveries.young];
  return {
    events: await allPages("/v1/events", key, 2),
    eventsOneByOne: await allPages("/v1/events", key, 1),
    eventsOfType: await allPages("/v1/events?type=proof.failed", key, 1),
    deliveries: await allPages("/v1/webhook-deliveries", key, 2),
    abandoned: await allPages("/v1/webhook-deliveries?status=abandoned", key, 1),
    ofEndpoint: await allPages("/v1/webhook-deliveries?endpoint_id=whe_a", key, 1),
    abandonedOfEndpoint: await allPages("/v1/webhook-deliveries?endpoint_id=whe_b&status=abandoned", key, 1),
    each: await Promise.all(allDeliveries.map((id) => seen(`/v1/webhook-deliveries/${id}`, key))),
    retried: await seen(`/v1/webhook-deliveries/${scene.deliveries.old[1]}/retry`, key, "POST"),
  };
}

describe("the archive of events and deliveries older than 30 days", () => {
  for (const shard of SHARDS) {
    it(`on shard ${shard}: leaves D1, and every route answers the same JSON from R2, its cursors crossing from D1 to the archive`, async () => {
      const scene = await archiveScene(shard);
      const before = await answers(scene);
      expect(before.events).toHaveLength(4);
      expect(before.retried.status).toBe(410);
      expect(before.retried.body.code).toBe("webhook_delivery_body_deleted");

      const moved = await archiveEventsAndDeliveries(workerContext(shardEnv, shard), new Date());
      expect(moved.events).toBeGreaterThanOrEqual(4);
      expect(moved.deliveries).toBeGreaterThanOrEqual(3);

      // Left in D1: the young rows, the event not yet handed to delivery, the delivery still being retried.
      expect(await count(shard, "events", scene.org.id)).toBe(3);
      expect(await count(shard, "webhook_deliveries", scene.org.id)).toBe(3);
      expect(await count(shard, "webhook_attempts", scene.org.id)).toBe(6);
      for (const id of scene.events.old) expect(await binding(shard).prepare("SELECT 1 FROM events WHERE id = ?").bind(id).first()).toBeNull();
      for (const id of scene.deliveries.old) {
        expect(await binding(shard).prepare("SELECT 1 FROM webhook_deliveries WHERE id = ?").bind(id).first()).toBeNull();
        expect(await binding(shard).prepare("SELECT 1 FROM webhook_attempts WHERE delivery_id = ?").bind(id).first()).toBeNull();
      }

      const after = await answers(scene);
      expect(after).toEqual(before);
      const archived = after.each[1]!.body;
      expect(archived).toMatchObject({ status: "abandoned", request_body: null, response_body_start: null, failure_reason: "http_500" });
      expect(archived.attempts_log).toHaveLength(2);

      // Another organization's key finds nothing of it.
      const other = await organizationOn(shard);
      expect((await callJson(`/v1/webhook-deliveries/${scene.deliveries.old[0]}`, { key: other.key })).status).toBe(404);
      expect((await callJson("/v1/events", { key: other.key })).body.data).toEqual([]);
    });
  }

  it("keeps the rows when the Worker dies between the R2 writes and the D1 batch, and moves them on the next run", async () => {
    const scene = await archiveScene("01");
    const before = await answers(scene);
    vi.spyOn(binding("01"), "batch").mockRejectedValueOnce(new Error("the Worker died"));
    await expect(archiveEventsAndDeliveries(workerContext(shardEnv, "01"), new Date())).rejects.toThrow("the Worker died");
    expect(await count("01", "events", scene.org.id)).toBe(7);
    // The chunk written meanwhile is in R2 but not in the index: the lists do not show its rows twice.
    expect((await env.FILES.list({ prefix: `archive/${scene.org.id}/test/events/` })).objects).toHaveLength(1);
    expect(await answers(scene)).toEqual(before);
    vi.restoreAllMocks();

    await archiveEventsAndDeliveries(workerContext(shardEnv, "01"), new Date());
    expect(await count("01", "events", scene.org.id)).toBe(3);
    expect(await count("01", "webhook_deliveries", scene.org.id)).toBe(3);
    expect(await answers(scene)).toEqual(before);
  });

  it("moves each row once when two runs sweep the shard at the same time", async () => {
    const scene = await archiveScene("00");
    const before = await answers(scene);
    await Promise.all([1, 2].map(() => archiveEventsAndDeliveries(workerContext(shardEnv, "00"), new Date())));
    expect(await count("00", "events", scene.org.id)).toBe(3);
    expect(await count("00", "webhook_deliveries", scene.org.id)).toBe(3);
    expect(await answers(scene)).toEqual(before);
  });

  it("leaves a delivery changed while its chunk was written in D1, and archives it as it became on the next run", async () => {
    const scene = await archiveScene("02");
    const changed = scene.deliveries.old[2]!;
    const later = daysAgo(35);
    let touched = false;
    const files: R2Bucket = Object.create(env.FILES, {
      put: {
        value: async (...args: Parameters<R2Bucket["put"]>) => {
          if (!touched && args[0].includes("/deliveries/")) {
            touched = true;
            await binding("02").prepare("UPDATE webhook_deliveries SET updated_at = ? WHERE id = ?").bind(later, changed).run();
          }
          return env.FILES.put(...args);
        },
      },
    });
    await archiveEventsAndDeliveries({ db: workerContext(shardEnv, "02").db, env: { ...shardEnv, FILES: files } }, new Date());
    expect(await binding("02").prepare("SELECT updated_at FROM webhook_deliveries WHERE id = ?").bind(changed).first()).toEqual({ updated_at: later });
    // The other day's delivery moved; the changed one's day (its chunk: two deliveries) stayed whole.
    expect(await count("02", "webhook_deliveries", scene.org.id)).toBe(5);

    const before = await answers(scene);
    expect(before.each[2]!.body.updated_at).toBe(later);
    await archiveEventsAndDeliveries(workerContext(shardEnv, "02"), new Date());
    expect(await count("02", "webhook_deliveries", scene.org.id)).toBe(3);
    expect(await answers(scene)).toEqual(before);
  });

  it("lists in order a delivery archived after younger ones of its day (it finished late): chunks may overlap in time", async () => {
    const shard = "00";
    const org = await organizationOn(shard);
    const day = daysAgo(40).slice(0, 10);
    const older = await insertDelivery(shard, org.id, "whe_a", "abandoned", daysAgo(45));
    const late = await insertDelivery(shard, org.id, "whe_a", "retrying", `${day}T10:00:00.000Z`);
    const middle = await insertDelivery(shard, org.id, "whe_a", "abandoned", `${day}T12:00:00.000Z`);
    const newest = await insertDelivery(shard, org.id, "whe_a", "succeeded", `${day}T14:00:00.000Z`);
    await deleteWebhookDeliveryBodies(workerContext(shardEnv, shard), new Date());
    await archiveEventsAndDeliveries(workerContext(shardEnv, shard), new Date());
    await binding(shard).prepare("UPDATE webhook_deliveries SET status = 'abandoned' WHERE id = ?").bind(late).run();
    await deleteWebhookDeliveryBodies(workerContext(shardEnv, shard), new Date());
    const before = await allPages("/v1/webhook-deliveries", org.key, 1);
    await archiveEventsAndDeliveries(workerContext(shardEnv, shard), new Date());
    expect(await count(shard, "webhook_deliveries", org.id)).toBe(0);
    // The day's two chunks: 12:00 to 14:00, archived first, then 10:00; the cursor after 14:00 lies inside the first.
    const chunks = await binding(shard)
      .prepare("SELECT oldest_created_at, newest_created_at FROM archive_chunks WHERE organization_id = ? ORDER BY newest_created_at DESC")
      .bind(org.id)
      .all();
    expect(chunks.results).toHaveLength(3);
    for (const limit of [1, 2, 3]) {
      const after = await allPages("/v1/webhook-deliveries", org.key, limit);
      expect(after.flatMap((page) => (page as { data: { id: string }[] }).data.map((delivery) => delivery.id))).toEqual([newest, middle, late, older]);
    }
    expect(await allPages("/v1/webhook-deliveries", org.key, 1)).toEqual(before);
  });

  it("works through a backlog a bounded number of R2 writes a run, each run within D1's limits", async () => {
    const shard = "01";
    const org = await organizationOn(shard);
    const backlog = 130;
    for (let index = 0; index < backlog; index++) await insertDelivery(shard, org.id, "whe_a", "succeeded", daysAgo(40, index));
    await deleteWebhookDeliveryBodies(workerContext(shardEnv, shard), new Date());
    const put = vi.spyOn(env.FILES, "put");
    const first = await archiveEventsAndDeliveries(workerContext(shardEnv, shard), new Date());
    expect(first.deliveries).toBeGreaterThanOrEqual(DELIVERIES_PER_ROUND);
    expect(first.deliveries).toBeLessThan(backlog);
    expect(put.mock.calls.length).toBeLessThanOrEqual(ARCHIVE_WRITES_PER_KIND);
    for (let run = 0; run < 4 && (await count(shard, "webhook_deliveries", org.id)) > 0; run++) {
      await archiveEventsAndDeliveries(workerContext(shardEnv, shard), new Date());
    }
    expect(await count(shard, "webhook_deliveries", org.id)).toBe(0);
    const listed = await allPages("/v1/webhook-deliveries", org.key, 100);
    expect(listed.flatMap((page) => (page as { data: unknown[] }).data)).toHaveLength(backlog);
  });
});

describe("an archive object deleted or damaged in storage (forger session 5, F7)", () => {
  const ids = (pages: unknown[]) => pages.flatMap((page) => (page as { data: { id: string }[] }).data.map((row) => row.id));
  const alerts = (error: { mock: { calls: unknown[][] } }) =>
    error.mock.calls.flatMap(([line]) => {
      const parsed = typeof line === "string" && line.startsWith("{") ? JSON.parse(line) : null;
      return parsed?.alert === "archive_object_unreadable" ? [{ key: parsed.key, fault: parsed.fault }] : [];
    });

  it("a chunk missing or not a list of rows: the lists answer every other row and the error log names it", async () => {
    const scene = await archiveScene("00");
    await archiveEventsAndDeliveries(workerContext(shardEnv, "00"), new Date());
    const chunks = async (kind: string) =>
      (await env.FILES.list({ prefix: `archive/${scene.org.id}/test/${kind}/` })).objects.map((object) => object.key).filter((key) => !key.includes("/by-id/"));
    // Events of days 40, 39 and 37: one chunk a day. Deliveries of days 40 and 39.
    const [eventsOf40, eventsOf39, eventsOf37] = (await chunks("events")).sort();
    const [deliveriesOf40, deliveriesOf39] = (await chunks("deliveries")).sort();
    expect([eventsOf40, eventsOf39, eventsOf37, deliveriesOf40, deliveriesOf39]).not.toContain(undefined);
    await env.FILES.delete(eventsOf40!);
    await env.FILES.put(eventsOf39!, "not json");
    await env.FILES.put(eventsOf37!, JSON.stringify({ rows: "not a list" }));
    await env.FILES.put(deliveriesOf39!, "not json");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);

    // Kept: the young events, the one never dispatched (still in D1); lost: the three chunks' four rows.
    for (const limit of [1, 2, 10])
      expect(ids(await allPages("/v1/events", scene.org.key, limit)).sort()).toEqual([...scene.events.young, scene.events.undispatched].sort());
    expect(ids(await allPages("/v1/webhook-deliveries", scene.org.key, 1)).sort()).toEqual(
      [scene.deliveries.old[0]!, scene.deliveries.stillRetrying, ...scene.deliveries.young].sort(),
    );
    expect(alerts(error)).toEqual(
      expect.arrayContaining([
        { key: eventsOf40, fault: "missing" },
        { key: eventsOf39, fault: "unreadable" },
        { key: eventsOf37, fault: "unreadable" },
        { key: deliveriesOf39, fault: "unreadable" },
      ]),
    );
  });

  it("a chunk rewritten as JSON of another shape, count or organization: its rows are not listed, and the error log names it", async () => {
    const scene = await archiveScene("02");
    const other = await archiveScene("02");
    await archiveEventsAndDeliveries(workerContext(shardEnv, "02"), new Date());
    const chunksOf = async (organizationId: string, kind: string) =>
      (await env.FILES.list({ prefix: `archive/${organizationId}/test/${kind}/` })).objects
        .map((object) => object.key)
        .filter((key) => !key.includes("/by-id/"))
        .sort();
    const [eventsOf40, eventsOf39, eventsOf37] = await chunksOf(scene.org.id, "events");
    const [deliveriesOf40, deliveriesOf39] = await chunksOf(scene.org.id, "deliveries");
    const [othersEventsOf40] = await chunksOf(other.org.id, "events");
    const rowsOf = async (key: string) => (await (await env.FILES.get(key))!.json()) as { id: string; organizationId: string }[];
    // Another organization's genuine row under this one's key; one row dropped (the count); rows of no known shape.
    await env.FILES.put(eventsOf40!, JSON.stringify(await rowsOf(othersEventsOf40!)));
    await env.FILES.put(eventsOf39!, JSON.stringify((await rowsOf(eventsOf39!)).slice(1)));
    await env.FILES.put(eventsOf37!, "[null]");
    await env.FILES.put(deliveriesOf40!, JSON.stringify([{ ...(await rowsOf(deliveriesOf40!))[0], status: "never" }]));
    await env.FILES.put(deliveriesOf39!, "[{}]");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const limit of [1, 10])
      expect(ids(await allPages("/v1/events", scene.org.key, limit)).sort()).toEqual([...scene.events.young, scene.events.undispatched].sort());
    expect(ids(await allPages("/v1/webhook-deliveries", scene.org.key, 1)).sort()).toEqual([scene.deliveries.stillRetrying, ...scene.deliveries.young].sort());
    expect(alerts(error)).toEqual(
      expect.arrayContaining([eventsOf40, eventsOf39, eventsOf37, deliveriesOf40, deliveriesOf39].map((key) => ({ key, fault: "unreadable" }))),
    );
  });

  it("a delivery's own object rewritten as JSON that is not this delivery: 404 as one never archived, never a 500", async () => {
    const scene = await archiveScene("00");
    await archiveEventsAndDeliveries(workerContext(shardEnv, "00"), new Date());
    const [id, another] = [scene.deliveries.old[1]!, scene.deliveries.old[0]!];
    const key = `archive/${scene.org.id}/test/deliveries/by-id/${id}.json`;
    const anotherDelivery = await (await env.FILES.get(`archive/${scene.org.id}/test/deliveries/by-id/${another}.json`))!.text();
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const forged of ["{}", "[1]", '"a string"', '{"delivery":null,"attempts":[]}', anotherDelivery]) {
      await env.FILES.put(key, forged);
      expect((await callJson(`/v1/webhook-deliveries/${id}`, { key: scene.org.key })).status, forged).toBe(404);
      expect((await callJson(`/v1/webhook-deliveries/${id}/retry`, { key: scene.org.key, method: "POST" })).status, forged).toBeLessThan(500);
    }
    expect(alerts(error).filter((alert) => alert.key === key)).toHaveLength(10);
  });

  it("a delivery's own object damaged: it answers 404 as one never archived, and the error log names it", async () => {
    const scene = await archiveScene("01");
    await archiveEventsAndDeliveries(workerContext(shardEnv, "01"), new Date());
    const id = scene.deliveries.old[1]!;
    const key = `archive/${scene.org.id}/test/deliveries/by-id/${id}.json`;
    expect(await env.FILES.head(key)).not.toBeNull();
    await env.FILES.put(key, "not json");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const read = await callJson(`/v1/webhook-deliveries/${id}`, { key: scene.org.key });
    expect(read.status).toBe(404);
    expect((await callJson(`/v1/webhook-deliveries/${id}/retry`, { key: scene.org.key, method: "POST" })).status).toBeLessThan(500);
    expect(alerts(error)).toContainEqual({ key, fault: "unreadable" });
  });
});
