import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { sampleEvent } from "./support/events.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { database } from "../../src/db/client.ts";
import { workerContext } from "../../src/domain/context.ts";
import { eventInsert } from "../../src/storage/events.ts";
import { findDelivery, startAttempt } from "../../src/storage/webhook-attempts.ts";
import { publishEvents } from "../../src/webhooks/publish-events.ts";
import { attemptDelivery } from "../../src/webhooks/attempt.ts";
import { WEBHOOK_RETRY_DELAYS_SECONDS } from "../../src/webhooks/retry-schedule.ts";
import { INTERRUPTED_AFTER_MS, INTERRUPTED_FAILURE, resolveInterruptedDeliveryAttempts } from "../../src/sweeps/resolve-interrupted-attempts.ts";
import { SEALING_PROGRESS_EVERY_MS, sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";

/**
 * Issue 31 point 5 (ADR 0050): what a Worker that died leaves behind is found again within two minutes. A
 * delivery attempt is on record before its request leaves; one left started is resolved honestly by the
 * sweep; a duplicate message sends nothing while an attempt is in flight or not yet due; a proof being
 * sealed shows progress, so only a silent one counts as stalled.
 */

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const HOST = "hooks-recovery.example.com";
/** Local receivers as `npm run dev` configures them: no DNS question, the request goes to the stubbed fetch. */
const localReceiver = () => workerContext({ ...env, WEBHOOK_RESOLVE: `${HOST}:443=127.0.0.1:9999` });

/** A webhook queue recording each message with its delay; nothing reaches a consumer. */
function recordingQueue() {
  const sent: Array<{ deliveryId: string; delaySeconds: number | undefined }> = [];
  const queue = {
    send: async (body: { delivery_id: string }, options?: QueueSendOptions) =>
      void sent.push({ deliveryId: body.delivery_id, delaySeconds: options?.delaySeconds }),
    sendBatch: async (messages: Iterable<MessageSendRequest<{ delivery_id: string }>>) => {
      const batch = [...messages];
      expect(batch.length).toBeLessThanOrEqual(100);
      for (const message of batch) sent.push({ deliveryId: message.body.delivery_id, delaySeconds: message.delaySeconds });
    },
  } as unknown as Queue;
  return { queue, sent };
}

/** `count` deliveries to one endpoint of a new organization, made and published but never queued. */
async function pendingDeliveries(count: number): Promise<string[]> {
  const org = await createOrganization();
  await callJson("/v1/webhook-endpoints", { key: org.testKey, body: { url: `https://${HOST}/hook`, events: ["proof.sealed"] } });
  const createdAt = new Date();
  const eventIds = Array.from({ length: count }, () => `evt_${crypto.randomUUID().replaceAll("-", "")}`);
  for (const eventId of eventIds) {
    await eventInsert(database(env.DB), sampleEvent({ organizationId: org.id, mode: "test", createdAt: createdAt.toISOString() }, "proof.sealed"), eventId);
  }
  await publishEvents(workerContext(env), eventIds, createdAt, async () => undefined);
  const rows = await env.DB.prepare(`SELECT id FROM webhook_deliveries WHERE event_id IN (${eventIds.map(() => "?").join(",")})`)
    .bind(...eventIds)
    .all<{ id: string }>();
  return rows.results.map((row) => row.id);
}

const pendingDelivery = async () => (await pendingDeliveries(1))[0]!;

const attempts = (deliveryId: string) =>
  env.DB.prepare("SELECT attempt, state, response_status, failure_reason FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt")
    .bind(deliveryId)
    .all<{ attempt: number; state: string; response_status: number | null; failure_reason: string | null }>()
    .then((rows) => rows.results);

/** What a Worker that died during its request leaves: the attempt started, never completed. */
async function startedThenDied(deliveryId: string, startedAt: Date): Promise<void> {
  const delivery = (await findDelivery(database(env.DB), deliveryId))!;
  const started = await startAttempt(env.DB, delivery, {
    id: `wat_${crypto.randomUUID()}`,
    attempt: delivery.attempts + 1,
    webhookId: `msg_${crypto.randomUUID()}`,
    startedAt: startedAt.toISOString(),
  });
  expect(started).toBe(true);
}

describe("a delivery attempt's record", () => {
  it("is started before the request leaves and completed after its answer", async () => {
    const deliveryId = await pendingDelivery();
    const seenDuringRequest: unknown[] = [];
    vi.stubGlobal("fetch", async () => {
      seenDuringRequest.push(...(await attempts(deliveryId)));
      return new Response("ok");
    });
    expect(await attemptDelivery(localReceiver(), deliveryId)).toEqual({ kind: "done" });
    expect(seenDuringRequest).toEqual([{ attempt: 1, state: "started", response_status: null, failure_reason: null }]);
    expect(await attempts(deliveryId)).toEqual([{ attempt: 1, state: "completed", response_status: 200, failure_reason: null }]);
    expect(await findDelivery(database(env.DB), deliveryId)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("left started by a Worker that died: a duplicate message sends nothing; the sweep records it interrupted and retries on schedule", async () => {
    const deliveryId = await pendingDelivery();
    const diedAt = new Date();
    await startedThenDied(deliveryId, diedAt);
    const requests: Request[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo, init?: RequestInit) => {
      requests.push(new Request(input, init));
      return new Response("ok");
    });
    // The overdue sweep's message for the same delivery, while the attempt is (or looks) in flight.
    expect(await attemptDelivery(localReceiver(), deliveryId)).toEqual({ kind: "done" });
    expect(requests).toHaveLength(0);

    const { queue, sent } = recordingQueue();
    const sweep = (ms: number) => resolveInterruptedDeliveryAttempts(workerContext({ ...env, WEBHOOK_QUEUE: queue }), new Date(diedAt.getTime() + ms));
    await sweep(INTERRUPTED_AFTER_MS - 1_000);
    expect((await attempts(deliveryId))[0]?.state).toBe("started");
    const resolvedAt = new Date(diedAt.getTime() + INTERRUPTED_AFTER_MS);
    await sweep(INTERRUPTED_AFTER_MS);
    expect(await attempts(deliveryId)).toEqual([{ attempt: 1, state: "interrupted", response_status: null, failure_reason: INTERRUPTED_FAILURE }]);
    expect(await findDelivery(database(env.DB), deliveryId)).toMatchObject({
      status: "retrying",
      attempts: 1,
      failureReason: INTERRUPTED_FAILURE,
      nextAttemptAt: new Date(resolvedAt.getTime() + WEBHOOK_RETRY_DELAYS_SECONDS[0] * 1000).toISOString(),
    });
    expect(sent.filter((message) => message.deliveryId === deliveryId)).toEqual([{ deliveryId, delaySeconds: WEBHOOK_RETRY_DELAYS_SECONDS[0] }]);
    // A second run finds nothing left to resolve.
    await sweep(INTERRUPTED_AFTER_MS + 60_000);
    expect(sent.filter((message) => message.deliveryId === deliveryId)).toHaveLength(1);

    // The retry, when due, sends the same event again: the receiver de-duplicates on X-Event-Id.
    const retriedAt = new Date(resolvedAt.getTime() + WEBHOOK_RETRY_DELAYS_SECONDS[0] * 1000);
    expect(await attemptDelivery(localReceiver(), deliveryId, retriedAt)).toEqual({ kind: "done" });
    expect(requests).toHaveLength(1);
    expect(await attempts(deliveryId)).toMatchObject([{ state: "interrupted" }, { attempt: 2, state: "completed", response_status: 200 }]);
  });

  it("abandons the delivery when the interrupted attempt was its last", async () => {
    const deliveryId = await pendingDelivery();
    const last = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;
    await env.DB.prepare("UPDATE webhook_deliveries SET status = 'retrying', attempts = ? WHERE id = ?")
      .bind(last - 1, deliveryId)
      .run();
    const diedAt = new Date();
    await startedThenDied(deliveryId, diedAt);
    const { queue, sent } = recordingQueue();
    await resolveInterruptedDeliveryAttempts(workerContext({ ...env, WEBHOOK_QUEUE: queue }), new Date(diedAt.getTime() + INTERRUPTED_AFTER_MS));
    expect(await findDelivery(database(env.DB), deliveryId)).toMatchObject({ status: "abandoned", attempts: last, nextAttemptAt: null });
    expect(sent.filter((message) => message.deliveryId === deliveryId)).toEqual([]);
  });

  it("a duplicate message arriving well before the attempt is due sends nothing", async () => {
    const deliveryId = await pendingDelivery();
    const now = new Date();
    await env.DB.prepare("UPDATE webhook_deliveries SET status = 'retrying', attempts = 1, next_attempt_at = ? WHERE id = ?")
      .bind(new Date(now.getTime() + 5 * 60_000).toISOString(), deliveryId)
      .run();
    const fetch = vi.fn(async () => new Response("ok"));
    vi.stubGlobal("fetch", fetch);
    expect(await attemptDelivery(localReceiver(), deliveryId, now)).toEqual({ kind: "done" });
    expect(fetch).not.toHaveBeenCalled();
    // Due (a queue's delay may be a little early): it is attempted.
    expect(await attemptDelivery(localReceiver(), deliveryId, new Date(now.getTime() + 5 * 60_000 - 10_000))).toEqual({ kind: "done" });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("a run resolves at most 50 interrupted attempts, in one batch, within D1's limits", async () => {
    const ids = await pendingDeliveries(55);
    expect(ids).toHaveLength(55);
    const diedAt = new Date(Date.now() - 24 * 60 * 60_000);
    for (const id of ids) await startedThenDied(id, diedAt);
    const { queue } = recordingQueue();
    const context = workerContext({ ...env, WEBHOOK_QUEUE: queue });
    const resolved = await resolveInterruptedDeliveryAttempts(context, new Date());
    expect(resolved).toBe(50);
    expect(await resolveInterruptedDeliveryAttempts(context, new Date())).toBeGreaterThanOrEqual(5);
    const left = await env.DB.prepare(`SELECT COUNT(*) AS n FROM webhook_attempts WHERE state = 'started' AND delivery_id IN (${ids.map(() => "?").join(",")})`)
      .bind(...ids)
      .first<{ n: number }>();
    expect(left).toEqual({ n: 0 });
  });
});

describe("a proof being sealed", () => {
  it("marks its progress while the sealer works, so the stalled-sealing sweep leaves a long seal alone", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    const long = "2000-01-01T00:00:00.000Z";
    let finish!: () => void;
    const answered = new Promise<void>((resolve) => (finish = resolve));
    const { deps } = dependencies(async (job: SealJob) => {
      await answered;
      return sealedAnswer(job);
    });
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const sealing = sealProof(deps, proofId);
    const updatedAt = () => env.DB.prepare("SELECT updated_at FROM proofs WHERE id = ?").bind(proofId).first<{ updated_at: string }>();
    for (
      let tries = 0;
      tries < 100 &&
      (await env.DB.prepare("SELECT seal_attempts FROM proofs WHERE id = ?").bind(proofId).first<{ seal_attempts: number }>())?.seal_attempts !== 1;
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    await env.DB.prepare("UPDATE proofs SET updated_at = ? WHERE id = ?").bind(long, proofId).run();
    vi.advanceTimersByTime(SEALING_PROGRESS_EVERY_MS);
    for (let tries = 0; tries < 100 && (await updatedAt())?.updated_at === long; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Date.now() - Date.parse((await updatedAt())!.updated_at)).toBeLessThan(5_000);
    finish();
    expect(await sealing).toBe("sealed");
  });
});
