import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { workerContext } from "../../src/domain/context.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { packagedArtifactKey, sealedBytesPrefix, sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { SEALED_RECORD_SHAPES } from "../../src/storage/objects/sealed-record-shape.ts";
import { deleteWebhookDeliveryBodies } from "../../src/sweeps/delete-webhook-delivery-bodies.ts";
import { archiveEventsAndDeliveries } from "../../src/sweeps/archive-events-and-deliveries.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { admin, call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { V2_CHAIN_PEM } from "./fixtures/sealed-proof-v2.ts";

/**
 * Forger session 8, H0 and H4: an array of 100,000 failing elements made zod throw a RangeError (its issues gathered
 * with one spread call overflowing the stack) instead of failing the check, so one object an insider wrote to the
 * bucket made routes answer 500, stopped the shard's re-hash for ever and blocked a proof's sealing. Every stored
 * array is bounded, and a check that throws is an unreadable object, never a 5xx.
 */
/** The genuine fixture's file ids are fixed: each test's proof gives its rows back, whatever the test's outcome. */
const fixtureProofs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const proofId of fixtureProofs.splice(0)) await env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId).run();
});

const wholeShard = { objects: 10_000, bytes: 1 << 30, proofs: 10_000 };
const byName = (checks: { name: string; result: string }[]) => Object.fromEntries(checks.map((check) => [check.name, check.result]));
const emptyObjects = (count: number) => `[${"{},".repeat(count - 1)}{}]`;

/** The genuine version-2 proof stored as an unbound version-1 proof, its one record's first entry with 100,000 `{}` signals. */
async function poisonedFactsRecord(organizationId?: string) {
  const { proofId, run } = await storedGenuineV2Proof();
  fixtureProofs.push(proofId);
  const owner = organizationId === undefined ? await createOrganization() : null;
  const rows = await filesOfProof(proofId);
  const facts = { captureContext: null, decoded: { width: 4000, height: 3000, duration_ms: null }, signals: [], priorCredentials: null, thumbnail: null };
  const record = { proof_id: proofId, run, files: Object.fromEntries(rows.map((row) => [row.id, facts])) };
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/c2pa-1.pem"), V2_CHAIN_PEM);
  await env.DB.prepare("UPDATE proofs SET sealed_record = 1, sealed_record_sha256 = NULL, organization_id = ? WHERE id = ?")
    .bind(organizationId ?? owner!.id, proofId)
    .run();
  await env.FILES.put(sealedRecordKey(proofId, run), JSON.stringify(record).replace('"signals":[]', `"signals":${emptyObjects(100_000)}`));
  return { proofId, run, ownerKey: owner?.testKey ?? "" };
}

const notBoundLines = (alerts: { mock: { calls: unknown[][] } }, proofId: string) =>
  alerts.mock.calls
    .map(([line]) => String(line))
    .filter((line) => line.includes("sealed_record_not_bound") && line.includes(proofId))
    .map((line) => JSON.parse(line));

/** The proof's routes: the record unreadable, said without a 500. */
async function expectUnreadableEverywhere(proofId: string, ownerKey: string) {
  const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const answer = await callJson(`/v1/public/proofs/${proofId}?probe=${crypto.randomUUID()}`);
  expect(answer.status).toBe(200);
  expect(answer.body.verification.verdict).toBe("not_verified");
  expect(byName(answer.body.verification.checks).files_record).toBe("fail");
  const page = await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('data-verdict="not_verified"');
  const list = await callJson("/v1/proofs", { key: ownerKey });
  expect(list.status).toBe(200);
  expect(list.body.data).toContainEqual(expect.objectContaining({ id: proofId, files_record: "unreadable" }));
  const one = await callJson(`/v1/proofs/${proofId}`, { key: ownerKey });
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({ files: [], files_record: "unreadable" });
  expect((await call(`/v1/public/proofs/${proofId}/package`)).status).toBe(409);
  return alerts;
}

/** The shard's re-hash completes past the proof (its cursor never stuck before it), the record left unbound and said so. */
async function expectRehashLeavesUnbound(proofId: string, alerts: { mock: { calls: unknown[][] } }) {
  await rehashSealedObjects(workerContext(env), new Date(Date.now() + 3_600_000), wholeShard);
  const { position } = (await env.DB.prepare("SELECT position FROM rehash_cursor WHERE id = 1").first<{ position: number }>())!;
  const { seq } = (await env.DB.prepare("SELECT rehash_seq AS seq FROM proofs WHERE id = ?").bind(proofId).first<{ seq: number }>())!;
  expect(position).toBeGreaterThanOrEqual(seq);
  expect(notBoundLines(alerts, proofId)).toEqual([expect.objectContaining({ fault: "unreadable" })]);
  const bound = await env.DB.prepare("SELECT sealed_record_sha256 AS sha256 FROM proofs WHERE id = ?").bind(proofId).first<{ sha256: string | null }>();
  expect(bound!.sha256).toBeNull();
}

describe("H0: a version-1 record with 100,000 empty signals", () => {
  it("is unreadable on every route, the owner's list answers, the re-hash completes", { timeout: 120_000 }, async () => {
    const { proofId, run, ownerKey } = await poisonedFactsRecord();
    // Bounded, the shape fails the record with an issue rather than throwing.
    const stored = await (await env.FILES.get(sealedRecordKey(proofId, run)))!.json();
    expect(SEALED_RECORD_SHAPES[1].safeParse(stored).success).toBe(false);
    await expectRehashLeavesUnbound(proofId, await expectUnreadableEverywhere(proofId, ownerKey));
  });

  it("a record check that throws is the record unreadable, never a 5xx nor the re-hash stopped", { timeout: 120_000 }, async () => {
    const { proofId, ownerKey } = await poisonedFactsRecord();
    vi.spyOn(SEALED_RECORD_SHAPES[1], "safeParse").mockImplementation(() => {
      throw new RangeError("Maximum call stack size exceeded");
    });
    const alerts = await expectUnreadableEverywhere(proofId, ownerKey);
    // The record is not of its shape, nothing failed to be read.
    expect(alerts.mock.calls.filter(([line]) => String(line).includes("sealed_record_read_failed"))).toEqual([]);
    await expectRehashLeavesUnbound(proofId, alerts);
  });

  it("a record whose read throws is that proof's record unreadable, never every proof's failure", { timeout: 120_000 }, async () => {
    const { proofId, run, ownerKey } = await poisonedFactsRecord();
    const get = env.FILES.get.bind(env.FILES);
    let failing = Number.POSITIVE_INFINITY;
    vi.spyOn(env.FILES, "get").mockImplementation(((key: string, options?: R2GetOptions) => {
      if (key === sealedRecordKey(proofId, run) && failing-- > 0) throw new Error("storage failed");
      return get(key, options);
    }) as typeof env.FILES.get);
    const alerts = await expectUnreadableEverywhere(proofId, ownerKey);
    // The re-hash's own hashing of the object is its concern: only the binding's read fails there.
    failing = 1;
    await expectRehashLeavesUnbound(proofId, alerts);
  });

  it("planted index entries naming it neither fail the public look-up nor block another proof's sealing", { timeout: 120_000 }, async () => {
    const organization = await createOrganization();
    const { proofId: poisoned } = await poisonedFactsRecord(organization.id);
    const sealedAt = (await env.DB.prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(poisoned).first<{ sealed_at: string }>())!.sealed_at;
    const { deps } = dependencies(async (job) => sealedAnswer(job));
    const victim = await insertPendingProof(organization.id, "test", 1);
    await sealProof(deps, victim.proofId);
    const [victimFile] = await filesOfProof(victim.proofId);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await env.FILES.put(`hashes/${victimFile!.signedSha256}/${poisoned}`, new Uint8Array());
    const lookUp = await callJson("/v1/public/verify", {
      method: "POST",
      body: { sha256: victimFile!.signedSha256! },
      headers: { "CF-Connecting-IP": "198.51.100.81" },
    });
    expect(lookUp.status).toBe(200);
    expect(lookUp.body.data.map((match: { proof_id: string }) => match.proof_id)).toContain(victim.proofId);

    const pending = await insertPendingProof(organization.id, "test", 1);
    const original = await env.DB.prepare("SELECT sha256 FROM files WHERE id = ?").bind(pending.fileIds[0]).first<{ sha256: string }>();
    await env.FILES.put(`${sealedBytesPrefix(organization.id, "test", original!.sha256)}${sealedAt}/${poisoned}`, new Uint8Array());
    await sealProof(deps, pending.proofId);
    const status = await env.DB.prepare("SELECT status FROM proofs WHERE id = ?").bind(pending.proofId).first<{ status: string }>();
    expect(status!.status).toBe("sealed");
  });
});

describe("H4: an archived delivery with 200,000 empty attempts", () => {
  it("answers 404 and is logged unreadable, never a 5xx", { timeout: 120_000 }, async () => {
    const organization = await admin("/admin/v1/organizations", { name: "Archive forgery", shard: "00" });
    const key = (await admin(`/admin/v1/organizations/${organization.body.id}/api-keys`, { mode: "test", rate_limit_per_minute: 1_000 })).body.key as string;
    const createdAt = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const suffix = () => crypto.randomUUID().replaceAll("-", "").slice(0, 20);
    const eventId = `evt_00${suffix()}`;
    const deliveryId = `whd_00${suffix()}`;
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO events (id, organization_id, mode, type, data, created_at, dispatched_at) VALUES (?, ?, 'test', 'proof.sealed', '{}', ?, ?)",
      ).bind(eventId, organization.body.id, createdAt, createdAt),
      env.DB.prepare(
        `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, event, status, attempts, request_body, response_status, response_body_start, failure_reason, created_at, updated_at)
         VALUES (?, ?, 'test', 'whe_a', ?, 'proof.sealed', 'abandoned', 1, '{}', 500, 'oops', 'http_500', ?, ?)`,
      ).bind(deliveryId, organization.body.id, eventId, createdAt, createdAt),
    ]);
    await deleteWebhookDeliveryBodies(workerContext(env, "00"), new Date());
    await archiveEventsAndDeliveries(workerContext(env, "00"), new Date());
    const byId = (await env.FILES.list({ prefix: `archive/${organization.body.id}/test/deliveries/by-id/` })).objects[0]!.key;
    const archived = await (await env.FILES.get(byId))!.json<Record<string, unknown>>();
    expect((await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key })).status).toBe(200);
    await env.FILES.put(byId, JSON.stringify({ ...archived, attempts: Array.from({ length: 200_000 }, () => ({})) }));
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const answer = await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key });
    expect(answer.status).toBe(404);
    expect(alerts.mock.calls.some(([line]) => String(line).includes("archive_object_unreadable") && String(line).includes(byId))).toBe(true);
  });
});
