import type { Env } from "./env.ts";
import { workerContext, type WorkerContext } from "./domain/context.ts";
import { sealingQueueConsumer } from "./sealing/consumer.ts";
import { sealingDependencies } from "./sealing/dependencies.ts";
import { consumeWebhookMessages } from "./webhooks/consumer.ts";
import { consumeDeadLetters } from "./webhooks/dead-letters.ts";

/** Consumer of one queue; it acks or retries each message itself (with the delay its schedule needs). */
export type QueueConsumer = (batch: MessageBatch<unknown>, worker: WorkerContext, ctx: ExecutionContext) => Promise<void>;

/** Queue name (as in wrangler.toml) to consumer. Each resource adds its own here. */
const CONSUMERS: Record<string, QueueConsumer> = {
  "proof-sealing": sealingQueueConsumer(sealingDependencies),
  "webhook-delivery": (batch, worker) => consumeWebhookMessages(batch.messages, worker),
  "webhook-delivery-dlq": (batch, worker) => consumeDeadLetters(batch.messages, worker),
};

export async function consumeQueue(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const consumer = CONSUMERS[batch.queue];
  if (consumer === undefined) {
    console.error(JSON.stringify({ level: "error", message: `No consumer for queue ${batch.queue}` }));
    batch.retryAll();
    return;
  }
  await consumer(batch, workerContext(env), ctx);
}
