import type { Env } from "./env.ts";
import { createApiApp, createCaptureApp } from "./routes/index.ts";
import { consumeQueue } from "./queues.ts";
import { runScheduledSweeps } from "./scheduled.ts";
import { misconfiguredResponse, startupProblems } from "./startup-check.ts";

export { RateLimitBucket } from "./durable/rate-limit-bucket.ts";
export { IdempotencyRecord } from "./durable/idempotency-record.ts";
export { ProofLinkLock } from "./durable/proof-link-lock.ts";
export { SealerContainer } from "./sealing/sealer-container.ts";

const apiApp = createApiApp();
const captureApp = createCaptureApp();

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
