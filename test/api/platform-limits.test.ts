import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { countQueriesPerInvocation, limitedQueue, rawBinding } from "./support/platform-limits.ts";
import worker from "../../src/index.ts";
import { database } from "../../src/db/client.ts";
import { eventInsert } from "../../src/storage/events.ts";
import { sampleEvent } from "./support/events.ts";
import { publishUndispatchedEvents } from "../../src/sweeps/publish-undispatched-events.ts";
import { resumeStalledSealing } from "../../src/sweeps/resume-stalled-sealing.ts";
import { workerContext } from "../../src/domain/context.ts";

/** A queue producer that records what it is sent, behind production's limits (nothing reaches a consumer). */
function recordingQueue() {
  const bodies: unknown[] = [];
  const batchSizes: number[] = [];
  const raw = {
    metrics: async () => ({ backlogCount: 0, backlogBytes: 0 }),
    send: async (body: unknown) => {
      bodies.push(body);
      batchSizes.push(1);
      return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } };
    },
    sendBatch: async (messages: Iterable<MessageSendRequest>) => {
      const list = [...messages];
      bodies.push(...list.map((message) => message.body));
      batchSizes.push(list.length);
      return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } };
    },
  } as Queue;
  return { queue: limitedQueue(raw), bodies, batchSizes };
}

/** Runs `work` as one handler invocation, with production's budget of queries. */
async function inOneInvocation<T>(work: () => Promise<T>): Promise<T> {
  const handler = { fetch: work };
  countQueriesPerInvocation(handler);
  return handler.fetch();
}

const params = (count: number) => Array.from({ length: count }, (_, index) => index);

describe("the test bindings refuse what production refuses", () => {
  it("D1: more than 100 bound parameters, a value or row over 2,000,000 bytes, also inside a batch", async () => {
    const select = (count: number) =>
      env.DB.prepare(
        `SELECT ${params(count)
          .map(() => "?")
          .join(", ")}`,
      ).bind(...params(count));
    await expect(select(100).all()).resolves.toBeDefined();
    await expect(select(101).all()).rejects.toThrow(/101 bound parameters/);
    await expect(env.DB.batch([select(1), select(101)])).rejects.toThrow(/101 bound parameters/);
    await expect(env.DB.prepare("SELECT length(?)").bind("x".repeat(2_000_001)).first()).rejects.toThrow(/2000001 bytes/);
    const half = "x".repeat(1_000_001);
    await expect(env.DB.prepare("INSERT INTO d1_migrations (name) VALUES (? || ?)").bind(half, half).run()).rejects.toThrow(/a row of at least 2000002 bytes/);
  });

  it("Queues: a sendBatch over 100 messages or 256 KB, a message over 128 KB", async () => {
    const { queue } = recordingQueue();
    await expect(queue.sendBatch(params(100).map((n) => ({ body: { n } })))).resolves.toBeDefined();
    await expect(queue.sendBatch(params(101).map((n) => ({ body: { n } })))).rejects.toThrow(/101 messages/);
    await expect(queue.send("x".repeat(128_000))).rejects.toThrow(/over 128000/);
    await expect(queue.sendBatch(params(3).map(() => ({ body: "x".repeat(100_000) })))).rejects.toThrow(/over 256000/);
    // The Worker's own bindings are the limited ones in every workerd test.
    await expect(env.WEBHOOK_QUEUE.sendBatch(params(101).map((n) => ({ body: { n } })))).rejects.toThrow(/101 messages/);
  });
});

describe("the Worker's own handlers", () => {
  it("each have production's budget of 1,000 queries per invocation", async () => {
    // A batch counts each of its statements; then one more query.
    const handlers = {
      async fetch(batched: number) {
        await env.DB.batch(Array.from({ length: batched }, () => env.DB.prepare("SELECT 1")));
        await env.DB.prepare("SELECT 1").first();
        return batched + 1;
      },
    };
    countQueriesPerInvocation(handlers);
    const invoke = handlers.fetch as unknown as (batched: number) => Promise<number>;
    await expect(invoke(999)).resolves.toBe(1_000);
    await expect(invoke(999)).resolves.toBe(1_000);
    await expect(invoke(1_000)).rejects.toThrow(/query 1001 of one invocation/);
    // The Worker's entry points are counted so; a request reaches them through the test harness.
    const original = worker.fetch;
    worker.fetch = async () => new Response(null, { status: 418 });
    try {
      const response = await call("/health");
      expect(response.status).toBe(418);
    } finally {
      worker.fetch = original;
    }
    expect(Symbol.for("platform-limits.raw-binding") in worker.fetch).toBe(true);
  });

  it("receive the limited bindings, not the local ones", async () => {
    expect(rawBinding(env.DB)).not.toBe(env.DB);
    const org = await createOrganization();
    const prepare = vi.spyOn(env.DB, "prepare");
    const response = await call("/v1/me", { key: org.testKey });
    await response.body?.cancel();
    expect(response.status).toBe(200);
    expect(prepare).toHaveBeenCalled();
    prepare.mockRestore();
  });
});

describe("sweeps over backlogs, within production's limits", () => {
  // Building the backlogs takes hundreds of writes: seconds on a busy machine.
  it("publishes a backlog of 250 events to 25 endpoints: every delivery queued once, over two runs, then nothing", { timeout: 60_000 }, async () => {
    const first = await createOrganization();
    const second = await createOrganization();
    const groups = [
      { org: first, key: first.testKey, mode: "test" as const, endpoints: 10, events: 100 },
      { org: first, key: first.liveKey, mode: "live" as const, endpoints: 10, events: 100 },
      { org: second, key: second.testKey, mode: "test" as const, endpoints: 5, events: 50 },
    ];
    const db = database(env.DB);
    const start = Date.now();
    const eventIds: string[] = [];
    let expectedDeliveries = 0;
    for (const group of groups) {
      for (let n = 0; n < group.endpoints; n++) {
        const created = await callJson("/v1/webhook-endpoints", { key: group.key, body: { url: `https://hooks.example.com/${n}`, events: ["proof.sealed"] } });
        expect(created.status).toBe(201);
      }
      for (let n = 0; n < group.events; n++) {
        const id = `evt_backlog_${group.mode}_${group.org.id}_${n}`;
        const createdAt = new Date(start - 3_600_000 + eventIds.length).toISOString();
        await eventInsert(
          db,
          sampleEvent({ organizationId: group.org.id, mode: group.mode, createdAt }, "proof.sealed", { proof_id: `prf_${n}`, session_id: `cps_${n}` }),
          id,
        );
        eventIds.push(id);
      }
      expectedDeliveries += group.endpoints * group.events;
    }
    const { queue, bodies, batchSizes } = recordingQueue();
    const undispatched = async () =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM events WHERE dispatched_at IS NULL AND id LIKE 'evt_backlog_%'").first<{ n: number }>())!.n;

    const runs: number[] = [];
    for (let minute = 1; minute <= 5 && (await undispatched()) > 0; minute++) {
      const before = bodies.length;
      await inOneInvocation(() => publishUndispatchedEvents(workerContext({ ...env, WEBHOOK_QUEUE: queue }), new Date(start + minute * 60_000)));
      runs.push(bodies.length - before);
    }
    expect(await undispatched()).toBe(0);
    expect(runs).toHaveLength(2);
    const queued = bodies.map((body) => (body as { delivery_id: string }).delivery_id);
    expect(queued).toHaveLength(expectedDeliveries);
    expect(new Set(queued).size).toBe(expectedDeliveries);
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(100);
    const made = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id LIKE 'evt_backlog_%' AND status = 'pending'").first<{
      n: number;
    }>();
    expect(made!.n).toBe(expectedDeliveries);

    await publishUndispatchedEvents(workerContext({ ...env, WEBHOOK_QUEUE: queue }), new Date(start + 10 * 60_000));
    expect(bodies).toHaveLength(expectedDeliveries);
  });

  it("re-sends a backlog of 150 stalled proofs once each, over two runs, and not again every minute", { timeout: 60_000 }, async () => {
    const org = await createOrganization();
    const proofIds: string[] = [];
    for (let n = 0; n < 150; n++) proofIds.push((await insertPendingProof(org.id, "test", 1)).proofId);
    const now = Date.now();
    await env.DB.prepare("UPDATE proofs SET updated_at = ? WHERE organization_id = ?")
      .bind(new Date(now - 60 * 60_000).toISOString(), org.id)
      .run();
    const { queue, bodies, batchSizes } = recordingQueue();

    const runs: number[] = [];
    for (let minute = 0; minute < 4; minute++)
      runs.push(await inOneInvocation(() => resumeStalledSealing(workerContext({ ...env, SEALING_QUEUE: queue }), new Date(now + minute * 60_000))));

    expect(runs).toEqual([100, 50, 0, 0]);
    const sent = bodies.map((body) => (body as { proof_id: string }).proof_id);
    expect(sent.sort()).toEqual([...proofIds].sort());
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(100);
  });
});
