import type { Env } from "./env.ts";
import { createApiApp, createCaptureApp } from "./routes/index.ts";
import { consumeByShard, shardOfIdIn, type ShardConsumer, type ShardOfMessage } from "./domain/shard-messages.ts";
import { sealingDependencies, sealingQueueConsumer } from "./sealing/consumer.ts";
import { consumeWebhookMessages } from "./webhooks/attempt.ts";
import { consumeDeadLetters } from "./webhooks/dead-letters.ts";
import { consumeSweepMessages, scheduleSweeps, shardOfSweepMessage } from "./scheduled.ts";
import { misconfiguredResponse, startupProblems } from "./startup-check.ts";

export { RateLimitBucket } from "./durable/rate-limit-bucket.ts";
export { ApiAccount } from "./durable/api-account.ts";
export { ProofLinkLock } from "./durable/proof-link-lock.ts";
export { SealerContainer } from "./sealing/sealer-container.ts";
export { SimilarityIndex } from "./durable/similarity-index.ts";

const apiApp = createApiApp();
const captureApp = createCaptureApp();

/**
 * Queue name (as in wrangler.toml) to its consumer and where a message's shard is read: each message is
 * consumed on the shard its id names (docs/adr/0062). Each resource adds its own here.
 */
const CONSUMERS: Record<string, { shardOf: ShardOfMessage; consume: ShardConsumer }> = {
  "proof-sealing": { shardOf: shardOfIdIn("proof_id"), consume: sealingQueueConsumer(sealingDependencies) },
  "webhook-delivery": { shardOf: shardOfIdIn("delivery_id"), consume: (messages, worker) => consumeWebhookMessages(messages, worker) },
  "webhook-delivery-dlq": { shardOf: shardOfIdIn("delivery_id"), consume: (messages, worker) => consumeDeadLetters(messages, worker) },
  "proof-sweeps": { shardOf: shardOfSweepMessage, consume: (messages, worker) => consumeSweepMessages(messages, worker) },
};

async function consumeQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const consumer = CONSUMERS[batch.queue];
  if (consumer === undefined) {
    console.error(JSON.stringify({ level: "error", message: `No consumer for queue ${batch.queue}` }));
    batch.retryAll();
    return;
  }
  await consumeByShard(batch.queue, batch.messages, env, consumer.shardOf, consumer.consume);
}

/** One Worker serves both hosts, as two custom domains do in production: dispatch on the Host header. */
function appFor(request: Request, env: Env) {
  return new URL(request.url).host === new URL(env.CAPTURE_BASE_URL).host ? captureApp : apiApp;
}

export default {
  fetch(request, env, ctx) {
    // A wrong configuration answers 503 naming the settings to fix, instead of issuing broken links.
    const problems = startupProblems(env);
    if (problems.length > 0) return misconfiguredResponse(env, problems);
    return appFor(request, env).fetch(request, env, ctx);
  },
  queue(batch, env, _ctx) {
    return consumeQueue(batch, env);
  },
  // The sweeps themselves run in the sweeps queue's consumer, a message per shard.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(scheduleSweeps(env));
  },
} satisfies ExportedHandler<Env>;
