import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { ApiAccount } from "../../src/durable/api-account.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { interceptRecordWrites } from "./support/record-writes.ts";

const sessionsOf = async (reference: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE external_reference = ?").bind(reference).first<{ n: number }>())!.n;

/** Holds every `finish` until released. */
function holdRecordWrites() {
  let open!: () => void;
  const released = new Promise<void>((resolve) => (open = resolve));
  const held: Promise<unknown>[] = [];
  const restore = interceptRecordWrites((write) => {
    const heldWrite = released.then(write);
    held.push(heldWrite);
    return heldWrite;
  });
  return {
    heldWrites: () => held.length,
    release: async () => {
      open();
      await Promise.all(held);
    },
    restore,
  };
}

/** Makes the first `failures` writes of a creation's answer fail, as a reset Durable Object or a lost call would. */
function failRecordWrites(failures: number) {
  const calls: Promise<unknown>[] = [];
  const restore = interceptRecordWrites((write) => {
    const call = calls.length < failures ? Promise.reject(new Error("Durable Object reset")) : write();
    calls.push(call.catch(() => undefined));
    return call;
  });
  return { calls: () => calls.length, restore };
}

describe("a creation's answer and its Idempotency-Key record", () => {
  it("answers without waiting for the record's write; meanwhile the same key gets the answer recorded with the session (concurrently too), then the stored one", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const body = baseSession();
    const key = `held-${crypto.randomUUID()}`;
    const hold = holdRecordWrites();
    let first: Awaited<ReturnType<typeof createSession>>;
    try {
      // Were the answer held for the write, this call would never return (the write is held until released).
      first = await createSession(org.testKey, body, key);
      expect(first.status).toBe(201);
      expect(hold.heldWrites()).toBe(1);
      // The record is still "started", but the session's insert recorded its attempt (ADR 0046).
      const meanwhile = await Promise.all(Array.from({ length: 5 }, () => createSession(org.testKey, body, key)));
      for (const response of meanwhile) {
        expect(response.status).toBe(201);
        expect(response.headers.get("Idempotent-Replayed")).toBe("true");
        expect(response.body).toEqual(first.body);
      }
      const otherBody = await createSession(org.testKey, { ...body, stage: "other" }, key);
      expect(otherBody.status).toBe(422);
      expect(otherBody.body.code).toBe("idempotency_key_reused");
      await hold.release();
    } finally {
      hold.restore();
    }
    const replayed = await Promise.all(Array.from({ length: 5 }, () => createSession(org.testKey, body, key)));
    for (const response of replayed) {
      expect(response.status).toBe(201);
      expect(response.headers.get("Idempotent-Replayed")).toBe("true");
      expect(response.body).toEqual(first.body);
    }
    expect(await sessionsOf(body.external_reference)).toBe(1);
  });

  it("the same key sent twice at once runs the creation once, and both callers end with the same session", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const body = baseSession();
    const key = `twice-${crypto.randomUUID()}`;
    const [a, b] = await Promise.all([createSession(org.testKey, body, key), createSession(org.testKey, body, key)]);
    // The second is in progress: 409 before the first's insert, its recorded answer after it (ADR 0046).
    const created = a.status === 201 && a.headers.get("Idempotent-Replayed") === null ? a : b;
    const other = created === a ? b : a;
    expect(created.status).toBe(201);
    if (other.status === 201) expect(other.body).toEqual(created.body);
    else expect(other.status).toBe(409);
    const retried = await createSession(org.testKey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(created.body);
    expect(await sessionsOf(body.external_reference)).toBe(1);
  });

  it("answers written together: a request arriving before their write still finds each one, and each caller of finish waits for its write", async () => {
    const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(`unit-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (account: ApiAccount) => {
      const keys = ["together-0001", "together-0002", "together-0003"];
      const attempts = await Promise.all(keys.map(async (key) => (await account.begin(key, "hash", null)).decision));
      const writes = keys.map((key, i) => {
        const attempt = attempts[i]!;
        if (attempt.kind !== "run") throw new Error(`expected run, got ${attempt.kind}`);
        return account.finish(key, attempt.attempt, "hash", 201, `{"n":${i}}`, { "Content-Type": "application/json" });
      });
      // Before the batch is written: a request with the second key gets its answer, not 409.
      expect((await account.begin("together-0002", "hash", null)).decision).toEqual({
        kind: "replay",
        status: 201,
        body: '{"n":1}',
        headers: { "Content-Type": "application/json" },
      });
      await Promise.all(writes);
      expect((await account.begin("together-0003", "other-hash", null)).decision).toEqual({ kind: "mismatch" });
    });
  });

  it("records begun together are written together: the same key meanwhile is in progress, and a run is answered once its record is written", async () => {
    const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(`unit-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (account: ApiAccount, state) => {
      const first = account.begin("begun-0001", "hash", null);
      const sameKey = account.begin("begun-0001", "hash", null);
      const otherKey = account.begin("begun-0002", "hash", null);
      expect((await sameKey).decision).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
      expect((await first).decision).toMatchObject({ kind: "run" });
      const started = state.storage.sql.exec<{ key: string }>("SELECT key FROM records WHERE state = 'started' ORDER BY key").toArray();
      expect(started.map((row) => row.key)).toEqual(["begun-0001", "begun-0002"]);
      expect((await otherKey).decision).toMatchObject({ kind: "run" });
    });
  });

  it("requests begun together with the key of a stored answer all get that answer", async () => {
    const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(`unit-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (account: ApiAccount) => {
      const run = (await account.begin("stored-0001", "hash", null)).decision;
      if (run?.kind !== "run") throw new Error("expected run");
      await account.finish("stored-0001", run.attempt, "hash", 201, '{"stored":true}', {});
      const together = await Promise.all(Array.from({ length: 3 }, () => account.begin("stored-0001", "hash", null)));
      for (const { decision } of together) expect(decision).toEqual({ kind: "replay", status: 201, body: '{"stored":true}', headers: {} });
    });
  });

  it("a failed write of the answer is tried again: the key's record gets the answer rather than staying in progress until stale", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const body = baseSession();
    const key = `lost-${crypto.randomUUID()}`;
    const failing = failRecordWrites(1);
    try {
      const first = await createSession(org.testKey, body, key);
      expect(first.status).toBe(201);
      for (const deadline = Date.now() + 3_000; failing.calls() < 2 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(failing.calls()).toBe(2);
      const retried = await createSession(org.testKey, body, key);
      expect(retried.status).toBe(201);
      expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
      expect(retried.body).toEqual(first.body);
      // From the record, not from D1: another body is a mismatch there, whatever D1 holds.
      await env.DB.prepare("DELETE FROM capture_session_creations WHERE session_id = ?").bind(first.body.id).run();
      expect((await createSession(org.testKey, body, key)).body).toEqual(first.body);
    } finally {
      failing.restore();
    }
    expect(await sessionsOf(body.external_reference)).toBe(1);
  });

  it("a record left started (its Worker died) is in progress for a minute, then a retry runs; the dead attempt can no longer store or forget it", async () => {
    const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(`unit-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (account: ApiAccount) => {
      const t0 = Date.now();
      const dead = (await account.begin("stale-0001", "hash", null, t0)).decision;
      if (dead?.kind !== "run") throw new Error("expected run");
      expect((await account.begin("stale-0001", "hash", null, t0 + 59_999)).decision).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
      const retry = (await account.begin("stale-0001", "hash", null, t0 + 60_000)).decision;
      if (retry?.kind !== "run") throw new Error("expected run");
      expect(retry.attempt).not.toBe(dead.attempt);
      account.release("stale-0001", dead.attempt);
      await account.finish("stale-0001", dead.attempt, "hash", 201, '{"dead":true}', {});
      await account.finish("stale-0001", retry.attempt, "hash", 201, '{"retry":true}', {});
      expect((await account.begin("stale-0001", "hash", null, t0 + 60_001)).decision).toMatchObject({ kind: "replay", body: '{"retry":true}' });
    });
  });
});
