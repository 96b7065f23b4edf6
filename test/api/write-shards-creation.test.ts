import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { admin, callJson } from "./support/client.ts";
import { captureCall, uploadPhoto } from "./support/capture.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { interceptRecordWrites } from "./support/record-writes.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";
import { giveWriteShard, SHARD_BINDING, type ShardBindings, shardBindings as bindings, type TestShard as Shard } from "./support/write-shards.ts";
import { databaseOfId } from "../../src/db/shards.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { apiAccountName } from "../../src/durable/api-account.ts";

/**
 * Where an organization with write shards creates its capture sessions, and what its balance allows
 * (docs/adr/0070, points 1, 2 and 4): new sessions in its write shard, an "after" in its before's shard, a
 * retry after a switch answered from the shard that recorded its key, and a balance summed over its shards,
 * decided for live creations and debits by its live account's Durable Object, one at a time. The organizations
 * live on 00 (vitest.config.ts) and are given 01 as the operator's `add-write-shard` does: the stub row first,
 * then the list's row in the home shard.
 */
/** A key made after the switch: its caller is read from D1 with the new list (a cached one may not have it yet). */
const keyAfterSwitch = async (organizationId: string, mode: "test" | "live") => (await createKey(organizationId, { mode, rate_limit_per_minute: 1000 })).key;

/** Uses a key once, so that this isolate caches its caller, and its list of shards, for 10 seconds. */
async function cacheCaller(key: string) {
  expect((await callJson("/v1/proofs?limit=1", { key })).status).toBe(200);
}

async function shardsHolding(table: string, id: string): Promise<Shard[]> {
  const shards = Object.keys(SHARD_BINDING) as Shard[];
  const found = await Promise.all(shards.map((shard) => bindings[SHARD_BINDING[shard]].prepare(`SELECT 1 FROM ${table} WHERE id = ?`).bind(id).first()));
  return shards.filter((_, index) => found[index] !== null);
}

/** A sealed "before" of the organization in `shard`, its session holding a template snapshot there. */
async function sealedBeforeOn(shard: Shard, organizationId: string, mode: "test" | "live") {
  const binding = bindings[SHARD_BINDING[shard]];
  const { proofId, sessionId } = await insertPendingProof(organizationId, mode, 1);
  if (shard !== "00") {
    // Moved as a write shard holds it: the same rows, their ids naming that shard.
    const moved = { proofId: proofId.replace(/^prf_(00)?/, `prf_${shard}`), sessionId: sessionId.replace(/^cps_(00)?/, `cps_${shard}`) };
    const [session] = (await env.DB.prepare("SELECT * FROM capture_sessions WHERE id = ?").bind(sessionId).all<Record<string, unknown>>()).results;
    const [proof] = (await env.DB.prepare("SELECT * FROM proofs WHERE id = ?").bind(proofId).all<Record<string, unknown>>()).results;
    await env.DB.batch([
      env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
      env.DB.prepare("DELETE FROM proofs WHERE id = ?").bind(proofId),
      env.DB.prepare("DELETE FROM capture_sessions WHERE id = ?").bind(sessionId),
    ]);
    const snapshot = JSON.stringify({ id: null, name: "Built-in photos", steps: [{ id: "photos" }] });
    const sha256 = await sha256Hex(snapshot);
    await binding
      .prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)")
      .bind(sha256, snapshot, new Date().toISOString())
      .run();
    const insert = (table: string, row: Record<string, unknown>) =>
      binding
        .prepare(
          `INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
            .map(() => "?")
            .join(", ")})`,
        )
        .bind(...Object.values(row));
    await binding.batch([
      insert("capture_sessions", { ...session, id: moved.sessionId, proof_id: moved.proofId, template_sha256: sha256 }),
      insert("proofs", { ...proof, id: moved.proofId, session_id: moved.sessionId, status: "sealed", holds_reservation: 0 }),
    ]);
    const reference = (proof as { external_reference: string }).external_reference;
    return { proofId: moved.proofId, reference };
  }
  await setSessionSnapshot(sessionId, JSON.stringify({ id: null, name: "Built-in photos", steps: [{ id: "photos" }] }));
  await env.DB.prepare("UPDATE proofs SET status = 'sealed', holds_reservation = 0 WHERE id = ?").bind(proofId).run();
  const proof = await env.DB.prepare("SELECT external_reference FROM proofs WHERE id = ?").bind(proofId).first<{ external_reference: string }>();
  return { proofId, reference: proof!.external_reference };
}

/** Runs `work` with every batch of the named shards delayed, widening the window between a decision's read and its write. */
async function withBatchesDelayed<T>(names: (keyof ShardBindings)[], work: () => Promise<T>): Promise<T> {
  const saved = names.map((name) => [name, bindings[name]] as const);
  for (const [name, binding] of saved) {
    bindings[name] = new Proxy(binding, {
      get(target, property) {
        if (property === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            return target.batch(statements);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
  try {
    return await work();
  } finally {
    for (const [name, binding] of saved) bindings[name] = binding;
  }
}

/** The operator's balance answer (an adjustment of 0 reads it): the organization's balance and available. */
const balanceOf = async (organizationId: string) => (await admin(`/admin/v1/organizations/${organizationId}/balance`, { amount: 0, reason: "read" })).body;

const tokenOf = (created: { body: { capture_url: string } }) => String(created.body.capture_url).split("/c/")[1]!;

describe("where a session is created", () => {
  it("in the home shard before the switch, in the write shard after it, with its link and snapshot there", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const before = await createSession(org.testKey, baseSession());
    expect(before.status).toBe(201);
    expect(before.body.id).toMatch(/^cps_00[0-9a-z]{20}$/);
    expect(await shardsHolding("capture_sessions", before.body.id)).toEqual(["00"]);

    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Home", primary_color: "#000000", locale: "fr" } });
    expect(theme.body).toMatchObject({ is_default: true, locale: "fr" });
    await giveWriteShard(org.id, "01");
    const after = await createSession(await keyAfterSwitch(org.id, "test"), baseSession());
    expect(after.status).toBe(201);
    expect(after.body.id).toMatch(/^cps_01[0-9a-z]{20}$/);
    expect(await shardsHolding("capture_sessions", after.body.id)).toEqual(["01"]);
    expect(tokenOf(after).slice(0, 2)).toBe("01");
    const snapshot = await bindings.DB_01.prepare(
      "SELECT COUNT(*) AS n FROM template_snapshots WHERE sha256 = (SELECT template_sha256 FROM capture_sessions WHERE id = ?)",
    )
      .bind(after.body.id)
      .first<{ n: number }>();
    expect(snapshot?.n).toBe(1);
    const recorded = await bindings.DB_01.prepare("SELECT COUNT(*) AS n FROM capture_session_creations WHERE session_id = ?")
      .bind(after.body.id)
      .first<{ n: number }>();
    expect(recorded?.n).toBe(1);
    // Themes stay home: the session written in 01 still takes the home default theme's locale.
    const locale = await bindings.DB_01.prepare("SELECT locale FROM capture_sessions WHERE id = ?").bind(after.body.id).first<{ locale: string }>();
    expect(locale?.locale).toBe("fr");
    const page = await captureCall(tokenOf(after), "/session");
    expect(page.status).toBe(200);
    expect(page.body.theme.primary_color).toBe("#000000");
  });

  it("writes an \"after\" to its before's shard, looked up there; a before of a shard not the organization's is unknown", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const onHome = await sealedBeforeOn("00", org.id, "test");
    await giveWriteShard(org.id, "01");
    const onWriteShard = await sealedBeforeOn("01", org.id, "test");
    const key = await keyAfterSwitch(org.id, "test");

    const afterOfHome = await createSession(key, { external_reference: onHome.reference, party: "provider", compare_to: onHome.proofId });
    expect(afterOfHome.status).toBe(201);
    expect(afterOfHome.body.id).toMatch(/^cps_00/);
    expect(tokenOf(afterOfHome).slice(0, 2)).toBe("00");
    expect(await shardsHolding("capture_sessions", afterOfHome.body.id)).toEqual(["00"]);

    const afterOfWriteShard = await createSession(key, { external_reference: onWriteShard.reference, party: "provider", compare_to: onWriteShard.proofId });
    expect(afterOfWriteShard.status).toBe(201);
    expect(afterOfWriteShard.body.id).toMatch(/^cps_01/);
    expect(await shardsHolding("capture_sessions", afterOfWriteShard.body.id)).toEqual(["01"]);

    const elsewhere = onWriteShard.proofId.replace(/^prf_01/, "prf_02");
    const unknown = await createSession(key, { external_reference: onWriteShard.reference, party: "provider", compare_to: elsewhere });
    expect(unknown.body).toMatchObject({ status: 422, code: "compare_to_not_found", field: "/compare_to" });
  });

  for (const mode of ["test", "live"] as const) {
    it(`writes a ${mode} "after" of a before in the write shard there, from an isolate whose cached caller predates the switch (forger 9, W5b)`, async () => {
      const org = await createOrganization({ rateLimit: 1000, balance: 2 });
      const staleKey = mode === "test" ? org.testKey : org.liveKey;
      await cacheCaller(staleKey);
      await giveWriteShard(org.id, "01");
      const before = await sealedBeforeOn("01", org.id, mode);

      const after = await createSession(staleKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
      expect(after.status).toBe(201);
      expect(after.body.id).toMatch(/^cps_01/);
      expect(await shardsHolding("capture_sessions", after.body.id)).toEqual(["01"]);
      if (mode === "live") expect(await balanceOf(org.id)).toEqual({ balance: 2, available: 1 });
    });
  }
});

describe("a creation's Idempotency-Key across a switch", () => {
  /** Runs `work` on the account's records (its Idempotency-Keys), as the Worker left them. */
  function inRecords(organizationId: string, mode: "test" | "live", work: (sql: SqlStorage) => void): Promise<void> {
    const stub = env.API_ACCOUNT.get(env.API_ACCOUNT.idFromName(apiAccountName({ organizationId, mode })));
    return runInDurableObject(stub, (_account, state) => work(state.storage.sql));
  }

  const sessionsWithReference = async (reference: string) => {
    const counts = await Promise.all(
      (Object.keys(SHARD_BINDING) as Shard[]).map((shard) =>
        bindings[SHARD_BINDING[shard]]
          .prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE external_reference = ?")
          .bind(reference)
          .first<{ n: number }>(),
      ),
    );
    return counts.reduce((sum, row) => sum + (row?.n ?? 0), 0);
  };

  it("replays a session created in the home shard when its key is retried after the switch, never a second one", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 5 });
    const body = baseSession();
    const key = `switch-${crypto.randomUUID()}`;
    const original = await createSession(org.liveKey, body, key);
    expect(original.status).toBe(201);
    expect(original.body.id).toMatch(/^cps_00/);
    // The key's record is lost (a Worker that died, an object reset): only the shard's creation row remembers it.
    await inRecords(org.id, "live", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));
    await giveWriteShard(org.id, "01");
    const liveKey = await keyAfterSwitch(org.id, "live");

    const retried = await createSession(liveKey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retried.body).toEqual(original.body);
    await inRecords(org.id, "live", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));
    const otherBody = await createSession(liveKey, { ...body, party: "recipient" }, key);
    expect(otherBody.body).toMatchObject({ status: 422, code: "idempotency_key_reused" });
    expect(await sessionsWithReference(body.external_reference)).toBe(1);
    expect(await balanceOf(org.id)).toEqual({ balance: 5, available: 4 });
  });

  it("replays a live creation recorded in a write shard the retrying isolate's cached list lacks, never a second session (forger 9, W1)", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 5 });
    await giveWriteShard(org.id, "01");
    const knowsOne = await keyAfterSwitch(org.id, "live");
    await cacheCaller(knowsOne);
    await giveWriteShard(org.id, "02");
    const body = baseSession();
    const key = `w1-${crypto.randomUUID()}`;
    const original = await createSession(await keyAfterSwitch(org.id, "live"), body, key);
    expect(original.body.id).toMatch(/^cps_02/);
    await inRecords(org.id, "live", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));

    const retried = await createSession(knowsOne, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retried.body).toEqual(original.body);
    expect(await sessionsWithReference(body.external_reference)).toBe(1);
    expect(await balanceOf(org.id)).toEqual({ balance: 5, available: 4 });
  });

  it("replays a test creation made in the write shard when an isolate cached before the switch retries its key (forger 9, W2)", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    await cacheCaller(org.testKey);
    await giveWriteShard(org.id, "01");
    const body = baseSession();
    const key = `w2-${crypto.randomUUID()}`;
    const original = await createSession(await keyAfterSwitch(org.id, "test"), body, key);
    expect(original.body.id).toMatch(/^cps_01/);
    await inRecords(org.id, "test", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));

    const retried = await createSession(org.testKey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retried.body).toEqual(original.body);
    expect(await sessionsWithReference(body.external_reference)).toBe(1);
    // A new key from that isolate is refused at home and made again with the list read now: in the write shard.
    const fresh = await createSession(org.testKey, baseSession());
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).toMatch(/^cps_01/);
  });

  it("replays a test creation recorded in a write shard the retrying isolate's cached list of several lacks (forger 9, W2)", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    await giveWriteShard(org.id, "01");
    const knowsOne = await keyAfterSwitch(org.id, "test");
    await cacheCaller(knowsOne);
    await giveWriteShard(org.id, "02");
    const body = baseSession();
    const key = `w2-many-${crypto.randomUUID()}`;
    const original = await createSession(await keyAfterSwitch(org.id, "test"), body, key);
    expect(original.body.id).toMatch(/^cps_02/);
    await inRecords(org.id, "test", (sql) => sql.exec("DELETE FROM records WHERE key = ?", key));

    const retried = await createSession(knowsOne, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retried.body).toEqual(original.body);
    expect(await sessionsWithReference(body.external_reference)).toBe(1);
  });

  it("answers a request in progress from the write shard that recorded the creation", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    await giveWriteShard(org.id, "01");
    const testKey = await keyAfterSwitch(org.id, "test");
    const body = baseSession();
    const key = `in-progress-${crypto.randomUUID()}`;
    const restore = interceptRecordWrites(() => Promise.resolve());
    try {
      const original = await createSession(testKey, body, key);
      expect(original.body.id).toMatch(/^cps_01/);
      const duringStart = await createSession(testKey, body, key);
      expect(duringStart.status).toBe(201);
      expect(duringStart.headers.get("Idempotent-Replayed")).toBe("true");
      expect(duringStart.body).toEqual(original.body);
    } finally {
      restore();
    }
    expect(await sessionsWithReference(body.external_reference)).toBe(1);
  });
});

describe("the balance of an organization with write shards", () => {
  /** The stub row's balance as proofs sealed in that shard leave it (each debits it by one). */
  const sealedInShard = (shard: Shard, organizationId: string, proofs: number) =>
    bindings[SHARD_BINDING[shard]].prepare("UPDATE organizations SET balance = balance - ? WHERE id = ?").bind(proofs, organizationId).run();

  it("is the sum over its shards: top-ups at home, debits of the proofs sealed in a write shard, promises in each", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 6 });
    expect((await createSession(org.liveKey, baseSession())).status).toBe(201);
    await giveWriteShard(org.id, "01");
    await sealedInShard("01", org.id, 2);
    const created = await createSession(await keyAfterSwitch(org.id, "live"), baseSession());
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^cps_01/);
    expect(await balanceOf(org.id)).toEqual({ balance: 4, available: 2 });
  });

  it("lets a live creation in the write shard use what the home shard has available, and no more", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 2 });
    await giveWriteShard(org.id, "01");
    const liveKey = await keyAfterSwitch(org.id, "live");
    expect((await createSession(liveKey, baseSession())).status).toBe(201);
    expect((await createSession(liveKey, baseSession())).status).toBe(201);
    const third = await createSession(liveKey, baseSession());
    expect(third.body).toMatchObject({ status: 402, code: "insufficient_balance" });
    expect(await balanceOf(org.id)).toEqual({ balance: 2, available: 0 });
  });

  it("never over-promises: ten concurrent live creations in two shards against a balance of 3 give three sessions", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 4 });
    // One promise made at home before the switch: 3 available, all of it in the home row.
    expect((await createSession(org.liveKey, baseSession())).status).toBe(201);
    const befores = await Promise.all(Array.from({ length: 5 }, () => sealedBeforeOn("00", org.id, "live")));
    await giveWriteShard(org.id, "01");
    const liveKey = await keyAfterSwitch(org.id, "live");
    // Every batch (the inserts) waits 30 ms before it runs: two decisions not made one at a time would each read
    // the other shard's balance before the other's insert lands, and both insert.
    const responses = await withBatchesDelayed(["DB", "DB_01"], () =>
      Promise.all([
        ...befores.map((before) => createSession(liveKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId })),
        ...Array.from({ length: 5 }, () => createSession(liveKey, baseSession())),
      ]),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
    expect(responses.filter((response) => response.status === 402)).toHaveLength(7);
    expect(await balanceOf(org.id)).toEqual({ balance: 4, available: 0 });
  });

  it("leaves no creation to an isolate whose cached caller predates the switch: the account's object decides it", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 1 });
    // Cached by this isolate with no write shard, for 10 seconds.
    expect((await createSession(org.testKey, baseSession())).status).toBe(201);
    expect((await createSession(org.liveKey, baseSession(), crypto.randomUUID())).status).toBe(201);
    await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 1, reason: "top-up" });
    await giveWriteShard(org.id, "01");
    expect((await createSession(await keyAfterSwitch(org.id, "live"), baseSession())).status).toBe(201);

    // Home alone would still show 1 available (2 - its one promise); over both shards nothing is.
    const stale = await createSession(org.liveKey, baseSession());
    expect(stale.body).toMatchObject({ status: 402, code: "insufficient_balance" });
    await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 1, reason: "top-up" });
    const decided = await createSession(org.liveKey, baseSession());
    expect(decided.status).toBe(201);
    expect(decided.body.id).toMatch(/^cps_01/);
    expect(await balanceOf(org.id)).toEqual({ balance: 3, available: 0 });
  });

  it("counts a write shard added since the caller's list was cached: the object reads the list, not the caller's", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 2 });
    await giveWriteShard(org.id, "01");
    const knowsOne = await keyAfterSwitch(org.id, "live");
    expect((await createSession(knowsOne, baseSession())).body.id).toMatch(/^cps_01/);
    await giveWriteShard(org.id, "02");
    expect((await createSession(await keyAfterSwitch(org.id, "live"), baseSession())).body.id).toMatch(/^cps_02/);

    // Cached with 00 and 01 only: 00 and 01 alone would still show 1 available, 02 holds the last promise.
    const stale = await createSession(knowsOne, baseSession());
    expect(stale.body).toMatchObject({ status: 402, code: "insufficient_balance" });
    expect(await balanceOf(org.id)).toEqual({ balance: 2, available: 0 });
  });

  it("lets a proof sealed in a write shard debit that shard's stub row below zero, the sum staying right", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 1 });
    await giveWriteShard(org.id, "01");
    const created = await createSession(await keyAfterSwitch(org.id, "live"), baseSession());
    expect(created.body.id).toMatch(/^cps_01/);
    const token = tokenOf(created);
    await uploadPhoto(token);
    const done = await captureCall(token, "/complete", { body: {} });
    expect(done.status).toBe(200);
    // The proof's id names the shard its session was written in: the sealing queue and every route open it there.
    expect(done.body.proof_id).toMatch(/^prf_01[0-9a-z]{20}$/);
    expect(await shardsHolding("proofs", done.body.proof_id)).toEqual(["01"]);
    const { deps } = dependencies(async (job: SealJob) => sealedAnswer(job));
    expect(await sealProof({ ...deps, db: databaseOfId(env, done.body.proof_id)! }, done.body.proof_id)).toBe("sealed");

    const stub = await bindings.DB_01.prepare("SELECT balance FROM organizations WHERE id = ?").bind(org.id).first<{ balance: number }>();
    expect(stub?.balance).toBe(-1);
    expect(await balanceOf(org.id)).toEqual({ balance: 0, available: 0 });
  });

  it("refuses a debit beyond what is available over every shard, and applies one within it", async () => {
    const org = await createOrganization({ rateLimit: 1000, balance: 5 });
    await giveWriteShard(org.id, "01");
    await sealedInShard("01", org.id, 2);
    expect((await createSession(await keyAfterSwitch(org.id, "live"), baseSession())).status).toBe(201);
    expect(await balanceOf(org.id)).toEqual({ balance: 3, available: 2 });

    const tooMuch = await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -3, reason: "correction" });
    expect(tooMuch.body).toMatchObject({ status: 409, code: "debit_exceeds_available_balance", balance: 3, available: 2 });
    const within = await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -2, reason: "correction" });
    expect(within.body).toEqual({ balance: 1, available: 0 });
    const home = await env.DB.prepare("SELECT balance FROM organizations WHERE id = ?").bind(org.id).first<{ balance: number }>();
    expect(home?.balance).toBe(3);
  });
});
