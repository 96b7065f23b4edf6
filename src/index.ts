import type { Env } from "./env.ts";
import { createApiApp, createCaptureApp } from "./routes/index.ts";
import { workerContext, type WorkerContext } from "./domain/context.ts";
import { sealingDependencies, sealingQueueConsumer } from "./sealing/consumer.ts";
import { consumeWebhookMessages } from "./webhooks/attempt.ts";
import { consumeDeadLetters } from "./webhooks/dead-letters.ts";
import { runScheduledSweeps } from "./scheduled.ts";
import { misconfiguredResponse, startupProblems } from "./startup-check.ts";

export { RateLimitBucket } from "./durable/rate-limit-bucket.ts";
export { ApiAccount } from "./durable/api-account.ts";
export { ProofLinkLock } from "./durable/proof-link-lock.ts";
export { SealerContainer } from "./sealing/sealer-container.ts";

const apiApp = createApiApp();
const captureApp = createCaptureApp();

/** Consumer of one queue; it acks or retries each message itself (with the delay its schedule needs). */
type QueueConsumer = (batch: MessageBatch<unknown>, worker: WorkerContext, ctx: ExecutionContext) => Promise<void>;

/** Queue name (as in wrangler.toml) to consumer. Each resource adds its own here. */
const CONSUMERS: Record<string, QueueConsumer> = {
  "proof-sealing": sealingQueueConsumer(sealingDependencies),
  "webhook-delivery": (batch, worker) => consumeWebhookMessages(batch.messages, worker),
  "webhook-delivery-dlq": (batch, worker) => consumeDeadLetters(batch.messages, worker),
};

async function consumeQueue(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const consumer = CONSUMERS[batch.queue];
  if (consumer === undefined) {
    console.error(JSON.stringify({ level: "error", message: `No consumer for queue ${batch.queue}` }));
    batch.retryAll();
    return;
  }
  await consumer(batch, workerContext(env), ctx);
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
  queue(batch, env, ctx) {
    return consumeQueue(batch, env, ctx);
  },
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledSweeps(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
