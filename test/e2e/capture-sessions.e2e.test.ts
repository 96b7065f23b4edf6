import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

async function organization(balance: number) {
  const org = await request(`${stack.baseUrl}/admin/v1/organizations`, { token: stack.adminToken, body: { name: "Concurrency" } });
  const keys = { mode: "live", rate_limit_per_minute: 1000 };
  const live = await request(`${stack.baseUrl}/admin/v1/organizations/${org.body.id}/api-keys`, { token: stack.adminToken, body: keys });
  const test = await request(`${stack.baseUrl}/admin/v1/organizations/${org.body.id}/api-keys`, { token: stack.adminToken, body: { ...keys, mode: "test" } });
  if (balance)
    await request(`${stack.baseUrl}/admin/v1/organizations/${org.body.id}/balance`, { token: stack.adminToken, body: { amount: balance, reason: "e2e" } });
  return { id: org.body.id as string, live: live.body.key as string, test: test.body.key as string };
}

const create = (key: string, body: unknown, idempotencyKey: string) =>
  request(`${stack.baseUrl}/v1/capture-sessions`, { token: key, body, headers: { "Idempotency-Key": idempotencyKey } });

describe("capture sessions over HTTP, concurrently", () => {
  for (let round = 1; round <= 3; round++) {
    it(`round ${round}: 25 identical idempotent calls create one session; 10 live creations on a balance of 3 give 3 × 201 and 7 × 402`, async () => {
      const org = await organization(3);
      const body = { external_reference: `e2e-${crypto.randomUUID()}`, party: "provider" };
      const key = `idem-${crypto.randomUUID()}`;
      const same = await Promise.all(Array.from({ length: 25 }, () => create(org.test, body, key)));
      const ids = new Set(same.filter((r) => r.status === 201).map((r) => r.body.id));
      expect(ids.size).toBe(1);
      expect(same.every((r) => r.status === 201 || (r.status === 409 && r.body.code === "request_in_progress"))).toBe(true);
      const replay = await create(org.test, body, key);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body.id).toBe([...ids][0]);

      const live = await Promise.all(
        Array.from({ length: 10 }, () => create(org.live, { external_reference: `e2e-${crypto.randomUUID()}`, party: "recipient" }, crypto.randomUUID())),
      );
      expect(live.filter((r) => r.status === 201)).toHaveLength(3);
      expect(live.filter((r) => r.status === 402 && r.body.code === "insufficient_balance")).toHaveLength(7);
      const balance = await request(`${stack.baseUrl}/admin/v1/organizations/${org.id}/balance`, {
        token: stack.adminToken,
        body: { amount: 0, reason: "read" },
      });
      expect(balance.body).toEqual({ balance: 3, available: 0 });
    });
  }
});
