import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import wranglerToml from "../../wrangler.toml?raw";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { limitedQueue } from "./support/platform-limits.ts";
import { database } from "../../src/db/client.ts";
import { eventInsert } from "../../src/storage/events.ts";
import { sampleEvent } from "./support/events.ts";
import { attemptDelivery } from "../../src/webhooks/attempt.ts";
import { publishEvents } from "../../src/webhooks/publish-events.ts";
import { DEAD_LETTER_FAILURE, consumeDeadLetters } from "../../src/webhooks/dead-letters.ts";
import worker from "../../src/index.ts";
import { OVERDUE_AFTER_MS, requeueOverdueDeliveries } from "../../src/sweeps/requeue-overdue-deliveries.ts";
import { WEBHOOK_RETRY_DELAYS_SECONDS } from "../../src/webhooks/retry-schedule.ts";
import { workerContext } from "../../src/domain/context.ts";

afterEach(() => vi.unstubAllGlobals());

/** A webhook queue that records what it is sent (behind production's limits); nothing reaches a consumer. */
function recordingQueue() {
  const sent: string[] = [];
  const raw = {
    metrics: async () => ({ backlogCount: 0, backlogBytes: 0 }),
    send: async (body: { delivery_id: string }) => void sent.push(body.delivery_id),
    sendBatch: async (messages: Iterable<MessageSendRequest<{ delivery_id: string }>>) => void sent.push(...[...messages].map((m) => m.body.delivery_id)),
  } as unknown as Queue;
  return { queue: limitedQueue(raw), sent };
}

/** A delivery whose first message was lost: made and marked published, but never queued. */
async function deliveryWithLostMessage(type: "proof.sealed" | "capture_session.completed" = "proof.sealed", sessionId = `cps_${crypto.randomUUID()}`) {
  const org = await createOrganization();
  await callJson("/v1/webhook-endpoints", {
    key: org.testKey,
    body: { url: "https://hooks.example.com/recovery", events: ["proof.sealed", "capture_session.completed"] },
  });
  return { org, ...(await lostDelivery(org.id, type, sessionId)) };
}

async function lostDelivery(organizationId: string, type: "proof.sealed" | "capture_session.completed", sessionId: string) {
  const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  const createdAt = new Date();
  await eventInsert(
    database(env.DB),
    sampleEvent({ organizationId, mode: "test", createdAt: createdAt.toISOString() }, type, { session_id: sessionId }),
    eventId,
  );
  await publishEvents(workerContext(env), [eventId], createdAt, async () => undefined);
  const row = await env.DB.prepare("SELECT id FROM webhook_deliveries WHERE event_id = ?").bind(eventId).first<{ id: string }>();
  return { deliveryId: row!.id, createdAt };
}

const delivery = (id: string) => env.DB.prepare("SELECT * FROM webhook_deliveries WHERE id = ?").bind(id).first<any>();
const at = (start: Date, ms: number) => new Date(start.getTime() + ms);

describe("deliveries whose message was lost", () => {
  it("are queued again once overdue, then not again before they are overdue once more", async () => {
    const { deliveryId, createdAt } = await deliveryWithLostMessage();
    const { queue, sent } = recordingQueue();
    const sweep = (ms: number) => requeueOverdueDeliveries(workerContext({ ...env, WEBHOOK_QUEUE: queue }), at(createdAt, ms));

    await sweep(OVERDUE_AFTER_MS - 10_000);
    expect(sent.filter((id) => id === deliveryId)).toHaveLength(0);
    await sweep(OVERDUE_AFTER_MS + 1_000);
    expect(sent.filter((id) => id === deliveryId)).toHaveLength(1);
    for (let tenSeconds = 1; tenSeconds < OVERDUE_AFTER_MS / 10_000; tenSeconds++) await sweep(OVERDUE_AFTER_MS + 1_000 + tenSeconds * 10_000);
    expect(sent.filter((id) => id === deliveryId)).toHaveLength(1);
    await sweep(2 * OVERDUE_AFTER_MS + 2_000);
    expect(sent.filter((id) => id === deliveryId)).toHaveLength(2);
  });

  it("leaves alone a delivery waiting for its retry or for its capture's earlier event", async () => {
    const sessionId = `cps_${crypto.randomUUID()}`;
    const { org, deliveryId: completed, createdAt } = await deliveryWithLostMessage("capture_session.completed", sessionId);
    const { deliveryId: sealed } = await lostDelivery(org.id, "proof.sealed", sessionId);
    vi.stubGlobal("fetch", async () => new Response("down", { status: 503 }));
    const attempted = at(createdAt, 1_000);
    expect(await attemptDelivery(workerContext(env), completed, attempted)).toEqual({ kind: "retry", delaySeconds: WEBHOOK_RETRY_DELAYS_SECONDS[0] });
    // proof.sealed waits for the completed event's next attempt, and says so.
    const waiting = await attemptDelivery(workerContext(env), sealed, attempted);
    expect(waiting.kind).toBe("retry");
    expect((await delivery(sealed)).next_attempt_at).toBe(at(attempted, (waiting as { delaySeconds: number }).delaySeconds * 1000).toISOString());

    const { queue, sent } = recordingQueue();
    await requeueOverdueDeliveries(workerContext({ ...env, WEBHOOK_QUEUE: queue }), at(attempted, OVERDUE_AFTER_MS));
    expect(sent.filter((id) => id === completed || id === sealed)).toEqual([]);
    await requeueOverdueDeliveries(
      workerContext({ ...env, WEBHOOK_QUEUE: queue }),
      at(attempted, WEBHOOK_RETRY_DELAYS_SECONDS[0] * 1000 + OVERDUE_AFTER_MS + 10_000),
    );
    expect(sent.filter((id) => id === completed || id === sealed).sort()).toEqual([completed, sealed].sort());
  });

  it("never queues a delivery that succeeded or was abandoned", async () => {
    const { deliveryId, createdAt } = await deliveryWithLostMessage();
    await env.DB.prepare("UPDATE webhook_deliveries SET status = 'abandoned' WHERE id = ?").bind(deliveryId).run();
    const { queue, sent } = recordingQueue();
    await requeueOverdueDeliveries(workerContext({ ...env, WEBHOOK_QUEUE: queue }), at(createdAt, 10 * OVERDUE_AFTER_MS));
    expect(sent).not.toContain(deliveryId);
  });
});

describe("the webhook queue's dead-letter queue", () => {
  it("is configured, and its consumer is the Worker's", async () => {
    // At the top level (local development, tests) and in the production environment, which inherits no binding.
    for (const prefix of ["", "env\\.production\\."]) {
      const consumer = new RegExp(`\\[\\[${prefix}queues\\.consumers\\]\\]\\s*\\nqueue = "webhook-delivery"\\n([^[]*)`).exec(wranglerToml);
      expect(consumer?.[1]).toMatch(/^dead_letter_queue = "webhook-delivery-dlq"$/m);
      expect(wranglerToml).toMatch(new RegExp(`\\[\\[${prefix}queues\\.consumers\\]\\]\\s*\\nqueue = "webhook-delivery-dlq"`));
    }
    const { deliveryId } = await deliveryWithLostMessage();
    const batch = createMessageBatch("webhook-delivery-dlq", [{ id: "dead-1", timestamp: new Date(), attempts: 11, body: { delivery_id: deliveryId } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<unknown>, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["dead-1"]);
    expect(await delivery(deliveryId)).toMatchObject({ status: "retrying", attempts: 1, failure_reason: DEAD_LETTER_FAILURE });
  });

  it("counts a dead-lettered message as a failed attempt; the sweep sends it again when due; the budget still ends it", async () => {
    const { deliveryId, createdAt } = await deliveryWithLostMessage();
    const deadLetter = async (now: Date) => {
      const batch = createMessageBatch("webhook-delivery-dlq", [{ id: `m-${now.getTime()}`, timestamp: now, attempts: 11, body: { delivery_id: deliveryId } }]);
      await consumeDeadLetters(batch.messages, workerContext(env), now);
      return (await getQueueResult(batch, createExecutionContext())).explicitAcks;
    };
    const { queue, sent } = recordingQueue();
    let now = at(createdAt, 60_000);
    for (const [index, delay] of WEBHOOK_RETRY_DELAYS_SECONDS.entries()) {
      expect(await deadLetter(now)).toHaveLength(1);
      const row = await delivery(deliveryId);
      expect(row).toMatchObject({
        status: "retrying",
        attempts: index + 1,
        failure_reason: DEAD_LETTER_FAILURE,
        next_attempt_at: at(now, delay * 1000).toISOString(),
      });
      now = at(now, delay * 1000 + OVERDUE_AFTER_MS + 1_000);
      await requeueOverdueDeliveries(workerContext({ ...env, WEBHOOK_QUEUE: queue }), now);
      expect(sent.filter((id) => id === deliveryId)).toHaveLength(index + 1);
    }
    await deadLetter(now);
    expect(await delivery(deliveryId)).toMatchObject({ status: "abandoned", attempts: WEBHOOK_RETRY_DELAYS_SECONDS.length + 1, next_attempt_at: null });
    const log = await env.DB.prepare("SELECT failure_reason FROM webhook_attempts WHERE delivery_id = ?").bind(deliveryId).all<any>();
    expect(log.results).toHaveLength(WEBHOOK_RETRY_DELAYS_SECONDS.length + 1);
  });
});
