import type { Env } from "../env.ts";
import { newId } from "../lib/ids.ts";
import { signatureHeader } from "./signature.ts";
import { deliveryTarget } from "./resolve-target.ts";
import { refusedDestination } from "./destination-check.ts";
import { firstBytesOf } from "./response-start.ts";

const TIMEOUT_MS = 10_000;
const RESPONSE_START_BYTES = 1024;

export interface SentRequest {
  /** `X-Webhook-Id`: this attempt's own identifier. */
  webhookId: string;
  durationMs: number;
  responseStatus: number | null;
  responseBodyStart: string | null;
  /** Why the attempt failed; null for a 2xx answer. */
  failure: string | null;
}

/**
 * The HTTP request of one attempt: the stored body signed with every secret given, 10-second timeout,
 * redirects not followed. A name that resolves inside a network receives nothing (WEBHOOK_RESOLVE's local
 * receivers excepted); a non-2xx answer or a network error is a failure.
 */
export async function sendDeliveryRequest(env: Env, url: string, body: string, eventId: string, secrets: string[], now: Date): Promise<SentRequest> {
  const webhookId = newId("msg");
  const target = deliveryTarget(env, url);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "proof-sealing-webhooks/1",
    "X-Signature": await signatureHeader(body, secrets, Math.floor(now.getTime() / 1000)),
    "X-Webhook-Id": webhookId,
    "X-Event-Id": eventId,
  };
  if (target.host) headers["X-Forwarded-Host"] = target.host;
  const started = Date.now();
  let responseStatus: number | null = null;
  let responseBodyStart: string | null = null;
  let failure = target.host === null ? await refusedDestination(env, new URL(target.url).hostname, now) : null;
  if (failure === null) {
    try {
      const response = await fetch(target.url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
      responseStatus = response.status;
      responseBodyStart = await firstBytesOf(response, RESPONSE_START_BYTES);
      if (responseStatus < 200 || responseStatus >= 300) failure = `endpoint answered HTTP ${responseStatus}`;
    } catch (error) {
      failure = (error as Error).name === "TimeoutError" ? "timed out after 10 s" : `network error: ${(error as Error).message}`;
    }
  }
  return { webhookId, durationMs: Date.now() - started, responseStatus, responseBodyStart, failure };
}
