import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import wranglerToml from "../../wrangler.toml?raw";
import type { Env } from "../../src/env.ts";
import { newShardedId, shardBinding, shardDatabase, type ShardCode } from "../../src/db/shards.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { scheduleSweeps, type SweepMessage } from "../../src/scheduled.ts";
import { workerContext } from "../../src/domain/context.ts";
import { eventInsert } from "../../src/storage/events.ts";
import { createEndpoint } from "../../src/webhooks/endpoints.ts";
import { publishEvents } from "../../src/webhooks/publish-events.ts";
import { DEAD_LETTER_FAILURE } from "../../src/webhooks/dead-letters.ts";
import type { ApiCaller } from "../../src/env.ts";
import { parseProtocolMessage, SealRequestSchema, SEALER_PROTOCOL_VERSION } from "../../shared/sealer-protocol.ts";
import { sampleEvent } from "./support/events.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { consumeBatch, recordingQueue, runCron } from "./support/queues.ts";
import { sealedAnswer } from "./support/sealing.ts";

/**
 * Issue 31 point 3 (docs/adr/0062), the background side: every queue message is consumed on the shard its id
 * names, and the cron's sweeps reach every shard, each in an invocation (and a query budget) of its own.
 */

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const shardEnv = env as unknown as Env;
const binding = (shard: ShardCode) => shardBinding(shardEnv, shard)!;

/** An organization created straight into a shard's database, its id naming that shard. */
async function organizationIn(shard: ShardCode, balance = 0): Promise<string> {
  const id = newShardedId("org", shard);
  const now = new Date().toISOString();
  await binding(shard)
    .prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
    .bind(id, `Org ${id}`, balance, now, now)
    .run();
  return id;
}

/** An open capture session of the organization that expired a minute ago. */
async function expiredOpenSession(organizationId: string, shard: ShardCode): Promise<string> {
  const id = newShardedId("cps", shard);
  const now = new Date();
  const templateSha256 = await sha256Hex("{}");
  await binding(shard)
    .prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)")
    .bind(templateSha256, "{}", now.toISOString())
    .run();
  await binding(shard)
    .prepare(
      `INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, stage, template_sha256, locale,
         holds_reservation, created_at, updated_at, expires_at)
       VALUES (?, ?, 'test', 'open', ?, ?, 'provider', 'checkin', ?, 'en', 0, ?, ?, ?)`,
    )
    .bind(
      id,
      organizationId,
      await sha256Hex(id),
      `ref-${id}`,
      templateSha256,
      now.toISOString(),
      now.toISOString(),
      new Date(now.getTime() - 60_000).toISOString(),
    )
    .run();
  return id;
}

const sessionStatus = async (shard: ShardCode, id: string) =>
  (await binding(shard).prepare("SELECT status FROM capture_sessions WHERE id = ?").bind(id).first<{ status: string }>())?.status ?? null;

describe("the cron", () => {
  it("sends one sweeps message per shard, in sendBatch calls of at most 100", async () => {
    const { queue, sent, sendBatches } = recordingQueue<SweepMessage>();
    await scheduleSweeps({ ...shardEnv, SWEEPS_QUEUE: queue });
    expect(sent).toEqual([{ shard: "00" }, { shard: "01" }, { shard: "02" }]);
    expect(sendBatches).toEqual([3]);

    const many = Array.from({ length: 150 }, (_, index) => index.toString(36).padStart(2, "0"));
    const large = recordingQueue<SweepMessage>();
    await scheduleSweeps({ ...shardEnv, SHARDS: many.join(","), SWEEPS_QUEUE: large.queue });
    expect(large.sent.map((message) => message.shard)).toEqual(many);
    expect(large.sendBatches).toEqual([100, 50]);
  });

  it("reaches every shard: an expired session of each is expired by the cron's round", async () => {
    const sessions = await Promise.all(
      (["00", "01", "02"] as const).map(async (shard) => ({ shard, id: await expiredOpenSession(await organizationIn(shard), shard) })),
    );
    expect(await runCron()).toEqual([{ shard: "00" }, { shard: "01" }, { shard: "02" }]);
    for (const { shard, id } of sessions) expect(await sessionStatus(shard, id)).toBe("expired");
  });
});

describe("the sweeps queue's consumer", () => {
  it("is configured at the top level and in production, where each shard's round is an invocation of its own", () => {
    const consumer = (prefix: string) => new RegExp(`\\[\\[${prefix}queues\\.consumers\\]\\]\\s*\\nqueue = "proof-sweeps"\\n([^[]*)`).exec(wranglerToml)?.[1];
    for (const prefix of ["", "env\\.production\\."]) {
      expect(wranglerToml).toMatch(new RegExp(`\\[\\[${prefix}queues\\.producers\\]\\]\\s*\\nbinding = "SWEEPS_QUEUE"\\nqueue = "proof-sweeps"`));
      expect(consumer(prefix)).toBeDefined();
    }
    // One message a batch: the 1,000 queries of an invocation are one shard's (docs/adr/0055).
    expect(consumer("env\\.production\\.")).toMatch(/^max_batch_size = 1$/m);
  });

  it("sweeps the shard its message names, and only that one", async () => {
    const org = await organizationIn("02");
    const session = await expiredOpenSession(org, "02");
    expect(await consumeBatch("proof-sweeps", [{ shard: "00" }, { shard: "01" }])).toEqual(["proof-sweeps-0", "proof-sweeps-1"]);
    expect(await sessionStatus("02", session)).toBe("open");
    expect(await consumeBatch("proof-sweeps", [{ shard: "02" }])).toEqual(["proof-sweeps-0"]);
    expect(await sessionStatus("02", session)).toBe("expired");
  });

  it("drops a message naming a shard this deployment does not have, with a log, never retrying it", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(await consumeBatch("proof-sweeps", [{ shard: "07" }, { shard: "../DB" }, {}])).toEqual(["proof-sweeps-0", "proof-sweeps-1", "proof-sweeps-2"]);
    const logged = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(logged).toContainEqual(expect.objectContaining({ level: "error", queue: "proof-sweeps", shard: "07" }));
    expect(logged).toHaveLength(3);
  });
});

describe("the sealing queue's consumer", () => {
  it("seals each proof of a batch mixing shards in its own shard's database", async () => {
    const inFirst = await insertPendingProof(await organizationIn("00", 1), "live");
    const inSecond = await insertPendingProof(await organizationIn("01", 1), "live");
    expect(inSecond.proofId).toMatch(/^prf_01[0-9a-z]{20}$/);
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const parsed = parseProtocolMessage(SealRequestSchema, await new Request(input, init).text());
      if (!parsed.ok) return new Response("unexpected request", { status: 500 });
      return Response.json({ protocol_version: SEALER_PROTOCOL_VERSION, ...sealedAnswer(parsed.value) });
    });
    const reports = recordingQueue<unknown>();
    const sealingEnv = { ...env, SEALER_URL: "https://sealer.test", SEALING_QUEUE: reports.queue };

    const acked = await consumeBatch("proof-sealing", [{ proof_id: inSecond.proofId }, { proof_id: inFirst.proofId }], sealingEnv);

    expect(acked.sort()).toEqual(["proof-sealing-0", "proof-sealing-1"]);
    const status = async (shard: ShardCode, id: string) =>
      (await binding(shard).prepare("SELECT status FROM proofs WHERE id = ?").bind(id).first<{ status: string }>())?.status ?? null;
    expect(await status("01", inSecond.proofId)).toBe("sealed");
    expect(await status("00", inFirst.proofId)).toBe("sealed");
    expect(await status("00", inSecond.proofId)).toBeNull();
    // The reports of each are asked for, by the proof's id, which finds its shard again.
    expect(reports.sent).toContainEqual({ report: "proof", proof_id: inSecond.proofId });
  });

  it("drops a proof id naming an unknown shard, with a log", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const unknown = newShardedId("prf", "09");
    expect(await consumeBatch("proof-sealing", [{ proof_id: unknown }])).toEqual(["proof-sealing-0"]);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual(
      expect.objectContaining({ queue: "proof-sealing", shard: "09", message_id: "proof-sealing-0" }),
    );
  });
});

const HOOK_HOST = "hooks-shard.example.com";

/** A delivery of a new organization of `shard` to its endpoint, made and published (its message is the test's). */
async function deliveryIn(shard: ShardCode): Promise<{ deliveryId: string; eventId: string }> {
  const organizationId = await organizationIn(shard);
  const db = shardDatabase(shardEnv, shard);
  const caller = { organizationId, organizationName: "Org", mode: "test", keyId: "key", rights: [], rateLimitPerMinute: 60 } as unknown as ApiCaller;
  await createEndpoint({ ctx: { env: shardEnv, db, caller, now: new Date() }, input: { url: `https://${HOOK_HOST}/hook`, events: ["proof.sealed"] } });
  const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  await eventInsert(db, sampleEvent({ organizationId, mode: "test", createdAt: new Date().toISOString() }, "proof.sealed"), eventId);
  const queued: string[] = [];
  await publishEvents(workerContext(shardEnv, shard), [eventId], new Date(), async (ids) => queued.push(...ids));
  expect(queued).toHaveLength(1);
  return { deliveryId: queued[0]!, eventId };
}

const attemptsIn = async (shard: ShardCode, deliveryId: string) =>
  (
    await binding(shard)
      .prepare("SELECT state, response_status, failure_reason FROM webhook_attempts WHERE delivery_id = ?")
      .bind(deliveryId)
      .all<{ state: string; response_status: number | null; failure_reason: string | null }>()
  ).results;

describe("the webhook queue's consumer", () => {
  it("delivers a shard-02 organization's delivery and records its attempt in that shard", async () => {
    const { deliveryId, eventId } = await deliveryIn("02");
    expect(deliveryId).toMatch(/^wdl_02[0-9a-z]{20}$/);
    const received: Request[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo, init?: RequestInit) => {
      received.push(new Request(input, init));
      return new Response("ok");
    });

    const acked = await consumeBatch("webhook-delivery", [{ delivery_id: deliveryId }], { ...env, WEBHOOK_RESOLVE: `${HOOK_HOST}:443=127.0.0.1:9999` });

    expect(acked).toEqual(["webhook-delivery-0"]);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.get("X-Event-Id")).toBe(eventId);
    expect(await attemptsIn("02", deliveryId)).toEqual([{ state: "completed", response_status: 200, failure_reason: null }]);
    const delivery = await binding("02").prepare("SELECT status FROM webhook_deliveries WHERE id = ?").bind(deliveryId).first<{ status: string }>();
    expect(delivery?.status).toBe("succeeded");
    expect(await binding("00").prepare("SELECT id FROM webhook_deliveries WHERE id = ?").bind(deliveryId).first()).toBeNull();
  });

  it("records a dead-lettered delivery of a shard-01 organization as a failed attempt in that shard", async () => {
    const { deliveryId } = await deliveryIn("01");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(await consumeBatch("webhook-delivery-dlq", [{ delivery_id: deliveryId }])).toEqual(["webhook-delivery-dlq-0"]);
    expect(await attemptsIn("01", deliveryId)).toEqual([expect.objectContaining({ failure_reason: DEAD_LETTER_FAILURE })]);
  });

  it("acknowledges a delivery (or dead letter) naming an unknown shard, with a log", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const unknown = newShardedId("wdl", "zz");
    expect(await consumeBatch("webhook-delivery", [{ delivery_id: unknown }])).toEqual(["webhook-delivery-0"]);
    expect(await consumeBatch("webhook-delivery-dlq", [{ delivery_id: unknown }])).toEqual(["webhook-delivery-dlq-0"]);
    const logged = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(logged.filter((line) => line.shard === "zz")).toHaveLength(2);
  });
});
