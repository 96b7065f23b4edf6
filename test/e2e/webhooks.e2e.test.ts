import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import Stripe from "stripe";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";

interface Received {
  body: string;
  signature: string;
  eventId: string;
  webhookId: string;
}

let stack: Stack;
let receiver: Server;
const received: Received[] = [];
/** How many requests the receiver fails before answering 200 (per event id). */
const failuresLeft = new Map<string, number>();
const stripe = new Stripe("sk_test_unused");
const HOOK = "https://hooks.example.com:9443/hook";

beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry = {
      body: Buffer.concat(chunks).toString("utf8"),
      signature: String(req.headers["x-signature"]),
      eventId: String(req.headers["x-event-id"]),
      webhookId: String(req.headers["x-webhook-id"]),
    };
    received.push(entry);
    const left = failuresLeft.get(JSON.parse(entry.body).event) ?? 0;
    if (left > 0) {
      failuresLeft.set(JSON.parse(entry.body).event, left - 1);
      return res.writeHead(503).end("try later");
    }
    res.writeHead(200).end("thanks");
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const port = (receiver.address() as { port: number }).port;
  stack = await startStack({ env: { WEBHOOK_RESOLVE: `hooks.example.com:9443=127.0.0.1:${port}`, WEBHOOK_RETRY_SCALE: "60" } });
});
afterAll(async () => {
  await stack?.stop();
  receiver?.close();
});

const waitFor = async (condition: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((done) => setTimeout(done, 200));
  }
};

describe("webhooks delivered to a local receiver on npm run dev", () => {
  it("delivers capture_session.completed then proof.sealed for a real capture, verified by Stripe's verifier with both secrets during a rotation", async () => {
    const endpoint = await request(`${stack.baseUrl}/v1/webhook-endpoints`, {
      token: stack.testKey,
      body: { url: HOOK, events: ["capture_session.completed", "proof.sealed"] },
    });
    expect(endpoint.status).toBe(201);
    const rotated = await request(`${stack.baseUrl}/v1/webhook-endpoints/${endpoint.body.id}/rotate-secret`, {
      token: stack.testKey,
      body: { expires_in_seconds: 600 },
    });
    const { completed } = await captureOverHttp(stack, stack.testKey, { external_reference: `hook-${Date.now()}`, party: "provider", stage: "checkin" }, [
      { file: "photo.jpg", type: "image/jpeg" },
    ]);
    const proof = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 90_000);
    expect(proof.status).toBe("sealed");
    await waitFor(() => received.filter((r) => r.body.includes(completed.body.proof_id)).length >= 2);
    const mine = received.filter((r) => r.body.includes(completed.body.proof_id));
    expect(mine.map((r) => JSON.parse(r.body).event)).toEqual(["capture_session.completed", "proof.sealed"]);
    for (const delivery of mine) {
      for (const secret of [endpoint.body.secret, rotated.body.secret]) {
        const event = stripe.webhooks.constructEvent(delivery.body, delivery.signature, secret) as unknown as { event: string };
        expect(["capture_session.completed", "proof.sealed"]).toContain(event.event);
      }
      expect(() => stripe.webhooks.constructEvent(delivery.body, delivery.signature, "whsec_wrong")).toThrow();
    }
    const sealed = JSON.parse(mine[1]!.body);
    expect(sealed).toMatchObject({ event: "proof.sealed", proof_id: completed.body.proof_id, timestamp: { qualified: false } });
    expect(Object.keys(sealed)).toEqual([
      "event",
      "proof_id",
      "session_id",
      "external_reference",
      "party",
      "stage",
      "compare_to",
      "manifest_sha256",
      "timestamp",
      "sealed_at",
      "signals",
    ]);
  });

  it("retries a failing receiver and shows each attempt in the delivery log with the exact body received", async () => {
    const endpoint = await request(`${stack.baseUrl}/v1/webhook-endpoints`, { token: stack.liveKey, body: { url: HOOK, events: ["proof.failed"] } });
    failuresLeft.set("proof.failed", 2);
    const test = await request(`${stack.baseUrl}/v1/webhook-endpoints/${endpoint.body.id}/test`, { token: stack.liveKey, body: { event: "proof.failed" } });
    expect(test.status).toBe(202);
    await waitFor(() => received.filter((r) => r.eventId === test.body.event_id).length >= 3, 40_000);
    const attempts = received.filter((r) => r.eventId === test.body.event_id);
    expect(new Set(attempts.map((a) => a.webhookId)).size).toBe(3);
    expect(JSON.parse(attempts[0]!.body)).toMatchObject({ event: "proof.failed", test: true, code: "file_hash_mismatch" });
    stripe.webhooks.constructEvent(attempts[2]!.body, attempts[2]!.signature, endpoint.body.secret);
    await waitFor(() => false, 500).catch(() => undefined);
    const log = await request(`${stack.baseUrl}/v1/webhook-deliveries/${test.body.delivery_id}`, { token: stack.liveKey });
    expect(log.body).toMatchObject({ status: "succeeded", attempts: 3, response_status: 200, response_body_start: "thanks" });
    expect(log.body.request_body).toBe(attempts[2]!.body);
    expect(log.body.attempts_log.map((a: any) => a.response_status)).toEqual([503, 503, 200]);
    const disabled = await request(`${stack.baseUrl}/v1/webhook-endpoints/${endpoint.body.id}`, {
      method: "PATCH",
      token: stack.liveKey,
      body: { status: "disabled" },
    });
    expect(disabled.body.status).toBe("disabled");
  });
});
