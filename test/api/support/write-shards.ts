import { afterAll, beforeAll, expect } from "vitest";
import { env } from "cloudflare:workers";
import { database } from "../../../src/db/client.ts";
import { captureSessions, files, proofs } from "../../../src/db/schema/index.ts";
import { newShardedId, shardDatabase, shardOfId } from "../../../src/db/shards.ts";
import { sha256Hex } from "../../../src/lib/crypto.ts";
import { insertStubOrganization, insertWriteShard } from "../../../src/storage/write-shards.ts";
import { admin } from "./client.ts";
import { createKey } from "./factories.ts";

/**
 * The three D1 shards the workerd tests run on (vitest.config.ts), for the tests of organizations writing past their
 * home shard (docs/adr/0070).
 */
export type ShardBindings = Record<"DB" | "DB_01" | "DB_02", D1Database>;
export const SHARD_BINDING = { "00": "DB", "01": "DB_01", "02": "DB_02" } as const satisfies Record<string, keyof ShardBindings>;
export type TestShard = keyof typeof SHARD_BINDING;
/** The Worker's own `env` by shard binding: a binding swapped here is the one the handlers read. */
export const shardBindings = env as unknown as ShardBindings;

/**
 * Opens all three shards to new organizations and write shards for the calling file, restoring its configured
 * OPEN_SHARDS ("00", vitest.config.ts) after it.
 */
export function openEveryShard(): void {
  const configured = env.OPEN_SHARDS;
  beforeAll(() => {
    env.OPEN_SHARDS = "00,01,02";
  });
  afterAll(() => {
    env.OPEN_SHARDS = configured;
  });
}

/**
 * Gives the organization `shard` as a write shard as the operator's `add-write-shard` does, without its checks: the
 * stub row in `shard` first, then the list's row in its home shard, both dated `fromAt` (now when not given).
 */
export async function giveWriteShard(organizationId: string, shard: TestShard, options: { fromAt?: string; stubName?: string } = {}): Promise<void> {
  const fromAt = options.fromAt ?? new Date().toISOString();
  await insertStubOrganization(shardDatabase(env, shard), { id: organizationId, name: options.stubName ?? "stub" }, fromAt);
  await insertWriteShard(shardDatabase(env, shardOfId(organizationId)), organizationId, shard, fromAt);
}

/**
 * A completed capture written straight into `shard`, as creation and completion write it there: its template
 * snapshot, its session and its proof, their ids naming the shard; the organization's row must be there (its home
 * row, or a write shard's stub).
 */
export async function insertCompletedCapture(
  shard: TestShard,
  organizationId: string,
  capture: {
    createdAt: string;
    status: "pending" | "sealed" | "failed";
    mode?: "test" | "live";
    /** `ref-<proof id>` when not given. */
    externalReference?: string;
    party?: "provider" | "recipient";
    stage?: string;
  },
): Promise<{ sessionId: string; proofId: string }> {
  const binding = shardBindings[SHARD_BINDING[shard]];
  const db = database(binding);
  const sessionId = newShardedId("cps", shard);
  const proofId = newShardedId("prf", shard);
  const templateSha256 = await sha256Hex("{}");
  const { createdAt } = capture;
  await binding.prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, '{}', ?)").bind(templateSha256, createdAt).run();
  const common = {
    organizationId,
    mode: capture.mode ?? "test",
    externalReference: capture.externalReference ?? `ref-${proofId}`,
    party: capture.party ?? "provider",
    stage: capture.stage ?? "checkin",
    templateSha256,
  };
  await db.insert(captureSessions).values({
    ...common,
    id: sessionId,
    status: "completed",
    tokenHash: await sha256Hex(crypto.randomUUID()),
    locale: "en",
    holdsReservation: 0,
    proofId,
    createdAt,
    updatedAt: createdAt,
    expiresAt: createdAt,
    completedAt: createdAt,
  });
  await db.insert(proofs).values({ ...common, id: proofId, status: capture.status, sessionId, holdsReservation: 0, createdAt, updatedAt: createdAt });
  return { sessionId, proofId };
}

/** An uploaded photo's row of a proof, in `shard` (a pending proof's files are read from D1). */
export async function insertUploadedFile(shard: TestShard, file: { id: string; sessionId: string; proofId: string; createdAt: string }): Promise<void> {
  await database(shardBindings[SHARD_BINDING[shard]])
    .insert(files)
    .values({
      id: file.id,
      sessionId: file.sessionId,
      proofId: file.proofId,
      stepId: "photos",
      kind: "photo",
      contentType: "image/jpeg",
      size: 64,
      sha256: await sha256Hex(file.id),
      status: "uploaded",
      captureContext: { method: "camera" },
      originalKey: `captures/${file.sessionId}/${file.id}`,
      createdAt: file.createdAt,
      capturedAt: file.createdAt,
    });
}

/** Runs `work` with the SQL of every statement prepared on the shard binding `name` recorded, in order. */
export async function statementsPreparedOn<T>(name: keyof ShardBindings, work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const saved = shardBindings[name];
  shardBindings[name] = new Proxy(saved, {
    get(target, property) {
      if (property === "prepare") {
        return (sql: string) => {
          statements.push(sql);
          return target.prepare(sql);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  try {
    return { result: await work(), statements };
  } finally {
    shardBindings[name] = saved;
  }
}

/** An organization the operator places on `home`, given `balance` live proofs through the operator's route. */
export async function organizationOn(home: TestShard, balance = 0): Promise<string> {
  const created = await admin("/admin/v1/organizations", { name: `Forger ${crypto.randomUUID()}`, shard: home });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (balance > 0) expect((await admin(`/admin/v1/organizations/${id}/balance`, { amount: balance, reason: "forger" })).status).toBe(200);
  return id;
}

/** The operator's `add-write-shard`, through its route. */
export const addWriteShard = (organizationId: string, shard: string) => admin(`/admin/v1/organizations/${organizationId}/write-shards`, { shard });
/** A new live key: its first request reads the organization's shards from D1, never from a cache. */
export const liveKeyOf = async (organizationId: string) => (await createKey(organizationId, { mode: "live", rate_limit_per_minute: 1000 })).key;
/** The operator's balance answer (an adjustment of 0 reads it): the balance and available over every shard. */
export const balanceOf = async (organizationId: string) =>
  (await admin(`/admin/v1/organizations/${organizationId}/balance`, { amount: 0, reason: "read" })).body;
