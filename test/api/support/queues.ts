import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../../src/index.ts";
import type { SweepMessage } from "../../../src/scheduled.ts";
import { limitedQueue } from "./platform-limits.ts";

/** A queue producer keeping each message sent (with production's limits checked); nothing reaches a consumer. */
export function recordingQueue<Body>() {
  const sent: Body[] = [];
  const sendBatches: number[] = [];
  const raw = {
    metrics: async () => ({ backlogCount: 0, backlogBytes: 0 }),
    send: async (body: Body) => void sent.push(body),
    sendBatch: async (messages: Iterable<MessageSendRequest<Body>>) => {
      const batch = [...messages];
      sendBatches.push(batch.length);
      sent.push(...batch.map((message) => message.body));
    },
  } as unknown as Queue;
  return { queue: limitedQueue(raw), sent, sendBatches };
}

/** Gives `bodies` to the Worker's consumer of `queue` as one batch, and answers which were acknowledged. */
export async function consumeBatch(queue: string, bodies: readonly unknown[], workerEnv: typeof env = env): Promise<string[]> {
  const batch = createMessageBatch(
    queue,
    bodies.map((body, index) => ({ id: `${queue}-${index}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, workerEnv, ctx);
  return (await getQueueResult(batch, ctx)).explicitAcks;
}

/**
 * The cron as production runs it: the scheduled handler sends a message per shard to the sweeps queue, and
 * the Worker's consumer runs each shard's sweeps in an invocation of its own. Answers the messages sent.
 */
export async function runCron(): Promise<SweepMessage[]> {
  const { queue, sent } = recordingQueue<SweepMessage>();
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), { ...env, SWEEPS_QUEUE: queue }, ctx);
  await waitOnExecutionContext(ctx);
  for (const message of sent) await consumeBatch("proof-sweeps", [message]);
  return sent;
}
