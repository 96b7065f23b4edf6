import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { apiAccountName, RETENTION_MS } from "../../src/durable/api-account.ts";
import { workerContext } from "../../src/domain/context.ts";
import { deleteExpiredSessionCreations } from "../../src/sweeps/delete-expired-session-creations.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { interceptRecordWrites } from "./support/record-writes.ts";

/**
 * Issue 31 point 4 (ADR 0046): the Worker dies after the session's insert and before its answer reaches the
 * Idempotency-Key's record. Here the write of that answer is dropped, as a Worker that died would never make
 * it: the record stays "started" while D1 holds the session, its hold and the attempt that created it.
 */
function dieBeforeTheAnswerIsStored(): () => void {
  return interceptRecordWrites(() => Promise.resolve());
}

const sessionsOf = async (reference: string) =>
  env.DB.prepare("SELECT COUNT(*) AS sessions, SUM(holds_reservation) AS holds FROM capture_sessions WHERE external_reference = ?")
    .bind(reference)
    .first<{ sessions: number; holds: number }>();

/** Runs `work` in the account's Durable Object: its records table as the Worker left it (not while intercepted). */
function inRecords(organizationId: string, mode: "test" | "live", work: (sql: SqlStorage) => void): Promise<void> {
  const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(apiAccountName({ organizationId, mode })));
  return runInDurableObject(stub, (_account, state) => work(state.storage.sql));
}

const recordState = async (organizationId: string, key: string) => {
  let state: string | undefined;
  await inRecords(organizationId, "live", (sql) => {
    state = sql.exec<{ state: string }>("SELECT state FROM records WHERE key = ?", key).toArray()[0]?.state;
  });
  return state;
};

describe("a creation whose Worker died between its insert and its stored answer", () => {
  it("replays the session on retry, while the record says started and once it is stale: one session, one hold; another body is refused", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 5 });
    const body = baseSession();
    const key = `crash-${crypto.randomUUID()}`;
    const restore = dieBeforeTheAnswerIsStored();
    let original: Awaited<ReturnType<typeof createSession>>;
    try {
      original = await createSession(org.liveKey, body, key);
      expect(original.status).toBe(201);

      // Within the minute: the record is "started", the answer comes from D1.
      const duringStart = await createSession(org.liveKey, body, key);
      expect(duringStart.status).toBe(201);
      expect(duringStart.headers.get("Idempotent-Replayed")).toBe("true");
      expect(duringStart.body).toEqual(original.body);
      const otherBody = await createSession(org.liveKey, { ...body, party: "recipient" }, key);
      expect(otherBody.status).toBe(422);
      expect(otherBody.body.code).toBe("idempotency_key_reused");
    } finally {
      restore();
    }
    expect(await recordState(org.id, key)).toBe("started");

    // A minute later the start is stale: the retry takes it over, replays and stores the answer as its own.
    await inRecords(org.id, "live", (sql) => sql.exec("UPDATE records SET started_at = started_at - 61000 WHERE key = ?", key));
    const afterStale = await createSession(org.liveKey, body, key);
    expect(afterStale.status).toBe(201);
    expect(afterStale.headers.get("Idempotent-Replayed")).toBe("true");
    expect(afterStale.body).toEqual(original.body);
    for (let tries = 0; (await recordState(org.id, key)) !== "done" && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await recordState(org.id, key)).toBe("done");
    const fromRecord = await createSession(org.liveKey, body, key);
    expect(fromRecord.body).toEqual(original.body);
    const otherAfter = await createSession(org.liveKey, { ...body, stage: "other" }, key);
    expect(otherAfter.status).toBe(422);
    expect(otherAfter.body.code).toBe("idempotency_key_reused");

    expect(await sessionsOf(body.external_reference)).toEqual({ sessions: 1, holds: 1 });
  });

  it("replays from D1 when the record is gone altogether, and refuses another body without keeping the key", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 5 });
    const body = baseSession();
    const key = `lost-record-${crypto.randomUUID()}`;
    const original = await createSession(org.liveKey, body, key);
    expect(original.status).toBe(201);
    await inRecords(org.id, "live", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));

    const otherBody = await createSession(org.liveKey, { ...body, party: "recipient" }, key);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.code).toBe("idempotency_key_reused");
    expect(await recordState(org.id, key)).toBeUndefined();
    const retried = await createSession(org.liveKey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retried.body).toEqual(original.body);
    expect(await sessionsOf(body.external_reference)).toEqual({ sessions: 1, holds: 1 });
  });

  it("a creation past its 24 hours no longer holds the key; D1 keeps neither the key nor the token in clear", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const body = baseSession();
    const key = `expired-${crypto.randomUUID()}`;
    const first = await createSession(org.testKey, body, key);
    const token = String(first.body.capture_url).split("/c/")[1]!;
    const stored = await env.DB.prepare("SELECT key_hash, sealed_token FROM capture_session_creations WHERE session_id = ?")
      .bind(first.body.id)
      .first<{ key_hash: string; sealed_token: string }>();
    expect(stored).not.toBeNull();
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(atob(stored!.sealed_token)).not.toContain(token);

    await env.DB.prepare("UPDATE capture_session_creations SET created_at = '2000-01-01T00:00:00.000Z' WHERE session_id = ?").bind(first.body.id).run();
    await inRecords(org.id, "test", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));
    const again = await createSession(org.testKey, body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await sessionsOf(body.external_reference)).toEqual({ sessions: 2, holds: 0 });
  });
});

describe("the attempts recorded with their sessions", () => {
  it("are deleted by the sweep once their 24 hours are over, and not before", async () => {
    const org = await createOrganization();
    const created = await createSession(org.testKey, baseSession());
    const recorded = () =>
      env.DB.prepare("SELECT COUNT(*) AS n FROM capture_session_creations WHERE session_id = ?").bind(created.body.id).first<{ n: number }>();
    const createdAt = Date.parse(created.body.expires_at) - 30 * 60_000;
    await deleteExpiredSessionCreations(workerContext(env), new Date(createdAt + RETENTION_MS - 60_000));
    expect(await recorded()).toEqual({ n: 1 });
    await deleteExpiredSessionCreations(workerContext(env), new Date(createdAt + RETENTION_MS + 1));
    expect(await recorded()).toEqual({ n: 0 });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE id = ?").bind(created.body.id).first<{ n: number }>())?.n).toBe(1);
  });
});
