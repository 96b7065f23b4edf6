import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { dnsStandIn } from "./support/dns-stand-in.ts";
import { sampleEvent } from "./support/events.ts";
import { countRoundTrips } from "./support/round-trips.ts";
import { giveWriteShard } from "./support/write-shards.ts";
import { database } from "../../src/db/client.ts";
import { newShardedId } from "../../src/db/shards.ts";
import { workerContext } from "../../src/domain/context.ts";
import { eventInsert } from "../../src/storage/events.ts";
import { publishUndispatchedEvents } from "../../src/sweeps/publish-undispatched-events.ts";
import { attemptDelivery } from "../../src/webhooks/attempt.ts";
import { deliveryBody } from "../../src/webhooks/delivery-body.ts";
import { publishEvents } from "../../src/webhooks/publish-events.ts";

/**
 * Webhooks of an organization writing past its home shard (docs/adr/0070): an event is recorded in the shard of the
 * session it is about, the organization's endpoints, deliveries and attempts stay home. The event is dispatched with
 * the home shard's endpoints, its deliveries are made home, and it is marked dispatched where it is.
 */
afterEach(() => vi.unstubAllGlobals());

/** An organization on 00 with an active test endpoint, writing to 01 since now. */
async function organizationWritingTo01() {
  const org = await createOrganization();
  const endpoint = await callJson("/v1/webhook-endpoints", {
    key: org.testKey,
    body: { url: "https://hooks.example.com/write-shards", events: ["proof.sealed", "capture_session.completed"] },
  });
  expect(endpoint.status).toBe(201);
  await giveWriteShard(org.id, "01", { stubName: "Stub" });
  return { org, endpointId: endpoint.body.id as string };
}

/** A proof.sealed event of a session of shard 01, recorded there. */
async function eventOn01(organizationId: string, createdAt: Date) {
  const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  const sessionId = newShardedId("cps", "01");
  const event = sampleEvent({ organizationId, mode: "test", createdAt: createdAt.toISOString() }, "proof.sealed", {
    session_id: sessionId,
    proof_id: newShardedId("prf", "01"),
  });
  await eventInsert(database(env.DB_01), event, eventId);
  return { eventId, body: deliveryBody(event.type, event.data) };
}

const deliveriesIn = async (d1: D1Database, eventId: string) =>
  (await d1.prepare("SELECT id, endpoint_id FROM webhook_deliveries WHERE event_id = ?").bind(eventId).all<{ id: string; endpoint_id: string }>()).results;
const dispatchedAt = async (d1: D1Database, eventId: string) =>
  (await d1.prepare("SELECT dispatched_at FROM events WHERE id = ?").bind(eventId).first<{ dispatched_at: string | null }>())?.dispatched_at;

/** Attempts the delivery home, as its queue message does (its id names home), and answers the body received. */
async function sentBody(deliveryId: string): Promise<string> {
  const sent: Request[] = [];
  vi.stubGlobal(
    "fetch",
    dnsStandIn(async (input: RequestInfo, init?: RequestInit) => {
      sent.push(new Request(input, init));
      return new Response("ok", { status: 200 });
    }).fetch,
  );
  expect(await attemptDelivery(workerContext(env, "00"), deliveryId)).toEqual({ kind: "done" });
  expect(sent).toHaveLength(1);
  return sent[0]!.text();
}

describe("an event recorded in a write shard", () => {
  it("is delivered to the home shard's endpoint, its delivery made home, and marked dispatched where it is", async () => {
    const { org, endpointId } = await organizationWritingTo01();
    const { eventId, body } = await eventOn01(org.id, new Date());
    const queued: string[] = [];
    await publishEvents(workerContext(env, "01"), [eventId], new Date(), async (ids) => queued.push(...ids));

    const home = await deliveriesIn(env.DB, eventId);
    expect(home).toEqual([{ id: expect.stringMatching(/^wdl_00/), endpoint_id: endpointId }]);
    expect(await deliveriesIn(env.DB_01, eventId)).toEqual([]);
    expect(queued).toEqual([home[0]!.id]);
    expect(await dispatchedAt(env.DB_01, eventId)).not.toBeNull();
    expect(await sentBody(home[0]!.id)).toBe(body);

    // Published again (a sweep after a crash): the same delivery, queued again while never attempted.
    const again: string[] = [];
    await publishEvents(workerContext(env, "01"), [eventId], new Date(), async (ids) => again.push(...ids));
    expect(await deliveriesIn(env.DB, eventId)).toHaveLength(1);
    expect(again).toEqual([]);
  });

  it("forgotten, is dispatched by the overdue-events sweep of its shard the same way", async () => {
    const { org, endpointId } = await organizationWritingTo01();
    const recorded = new Date(Date.now() - 60_000);
    const { eventId, body } = await eventOn01(org.id, recorded);
    const queued: string[] = [];
    await publishUndispatchedEvents({ ...workerContext(env, "01"), env: { ...env, WEBHOOK_QUEUE: recordingQueue(queued) } }, new Date());

    const home = await deliveriesIn(env.DB, eventId);
    expect(home).toEqual([{ id: expect.stringMatching(/^wdl_00/), endpoint_id: endpointId }]);
    expect(queued).toContain(home[0]!.id);
    expect(await dispatchedAt(env.DB_01, eventId)).not.toBeNull();
    expect(await sentBody(home[0]!.id)).toBe(body);
  });
});

describe("an organization living in one shard", () => {
  it("dispatches in its shard alone, in today's four round trips", async () => {
    const org = await createOrganization();
    await callJson("/v1/webhook-endpoints", { key: org.testKey, body: { url: "https://hooks.example.com/one-shard", events: ["proof.sealed"] } });
    const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
    await eventInsert(
      database(env.DB),
      sampleEvent({ organizationId: org.id, mode: "test", createdAt: new Date().toISOString() }, "proof.sealed", { session_id: newShardedId("cps", "00") }),
      eventId,
    );
    const { trips } = await countRoundTrips(() => publishEvents(workerContext(env, "00"), [eventId], new Date(), async () => undefined));
    expect(trips.log).toEqual(["d1 batch(2)", "d1 batch(1)", "d1", "d1"]);
    expect(await deliveriesIn(env.DB, eventId)).toHaveLength(1);
  });
});

/** A webhook queue recording the delivery ids it is sent; nothing reaches a consumer. */
function recordingQueue(sent: string[]): Queue {
  return {
    send: async (body: { delivery_id: string }) => void sent.push(body.delivery_id),
    sendBatch: async (messages: Iterable<MessageSendRequest<{ delivery_id: string }>>) => void sent.push(...[...messages].map((m) => m.body.delivery_id)),
  } as unknown as Queue;
}
