import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { workerContext } from "../../src/domain/context.ts";
import { database } from "../../src/db/client.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { packagedArtifactKey, sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { bindSealedRecord } from "../../src/storage/proofs.ts";
import { proofRehashes } from "../../src/storage/sealed-object-checks.ts";
import { missingReports } from "../../src/storage/proof-reports.ts";
import { makeProofReport } from "../../src/reports/make-report.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { V2_CHAIN_PEM, V2_FILES } from "./fixtures/sealed-proof-v2.ts";

/**
 * Forger session 7, G12 and G11's residual (docs/adr/0069): a proof sealed with a record of facts (`sealed_record` 1,
 * its rows in D1) before migration 0028 has no SHA-256 of its record in D1. The re-hash's pass over it binds the record
 * as it is then, never over a bound hash; an edit made after that pass is refused on every read. A record of facts
 * holds entries for the proof's own files only: one with more is unreadable, never parsed at length.
 */
type FactsRecord = { proof_id: string; run: string; files: Record<string, Record<string, unknown>> };

const byName = (checks: { name: string; result: string }[]) => Object.fromEntries(checks.map((check) => [check.name, check.result]));
const FORGED_TIME = "2019-01-01T00:00:00.000Z";
const first = V2_FILES[0].id;
let clock = Date.now();
const wholeShard = { objects: 10_000, bytes: 1 << 30, proofs: 10_000 };

/** One pass of the shard's re-hash over every sealed proof, an hour after the previous one. */
async function rehashPass() {
  clock += 3_600_000;
  await rehashSealedObjects(workerContext(env), new Date(clock), wholeShard);
}

/**
 * The genuine version-2 proof as a proof sealed between migrations 0024 and 0028 is stored: its rows in D1, its
 * facts in a record of facts (the fields that version wrote, a signal among them), no SHA-256 of it in D1; owned by a
 * fresh organization.
 */
async function sealedWithFactsRecord() {
  const { proofId, run } = await storedGenuineV2Proof();
  const owner = await createOrganization();
  const rows = await filesOfProof(proofId);
  const facts = (index: number) => ({
    captureContext: { method: "camera", device_time: "2026-11-26T15:00:00.000Z", width: 4000, height: 3000 },
    decoded: { width: 4000, height: 3000, duration_ms: null },
    signals: index === 0 ? [{ code: "sealed_before", detail: "The same bytes were sealed before, in proof prf_earlier.", proof_id: "prf_earlier" }] : [],
    priorCredentials: null,
    thumbnail: null,
  });
  const record: FactsRecord = { proof_id: proofId, run, files: Object.fromEntries(rows.map((row, index) => [row.id, facts(index)])) };
  const bytes = new TextEncoder().encode(JSON.stringify(record));
  await env.FILES.put(sealedRecordKey(proofId, run), bytes);
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/c2pa-1.pem"), V2_CHAIN_PEM);
  await env.DB.prepare("UPDATE proofs SET sealed_record = 1, sealed_record_sha256 = NULL, organization_id = ? WHERE id = ?").bind(owner.id, proofId).run();
  return { proofId, run, ownerKey: owner.testKey, sha256: await sha256Hex(bytes) };
}

type Proof = { proofId: string; run: string };

async function editRecord(proof: Proof, edit: (record: FactsRecord) => void) {
  const key = sealedRecordKey(proof.proofId, proof.run);
  const record = await (await env.FILES.get(key))!.json<FactsRecord>();
  edit(record);
  await env.FILES.put(key, JSON.stringify(record));
}

const boundSha256 = async (proofId: string) =>
  (await env.DB.prepare("SELECT sealed_record_sha256 AS sha256 FROM proofs WHERE id = ?").bind(proofId).first<{ sha256: string | null }>())!.sha256;

/** The public JSON computed now (a query string of its own: never one the edge cache kept). */
const publicJson = (proofId: string) => callJson(`/v1/public/proofs/${proofId}?probe=${crypto.randomUUID()}`);

/** The public JSON and page of a proof whose record cannot give its files: not verified, `files_record` failing, no file. */
async function expectRecordRefused(proofId: string, forbidden: string[]) {
  const answer = await publicJson(proofId);
  expect(answer.status).toBe(200);
  expect(answer.body.files).toEqual([]);
  expect(answer.body.verification).toMatchObject({ status: "invalid", verdict: "not_verified" });
  expect(byName(answer.body.verification.checks).files_record).toBe("fail");
  const page = await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } });
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('data-verdict="not_verified"');
  for (const value of forbidden) {
    expect(JSON.stringify(answer.body)).not.toContain(value);
    expect(html).not.toContain(value);
  }
}

/** The `sealed_record_not_bound` lines logged for a proof, as parsed JSON. */
const notBoundLines = (alerts: { mock: { calls: unknown[][] } }, proofId: string) =>
  alerts.mock.calls
    .map(([line]) => String(line))
    .filter((line) => line.includes('"sealed_record_not_bound"') && line.includes(proofId))
    .map((line) => JSON.parse(line) as { fault: string });

afterEach(async () => {
  vi.restoreAllMocks();
  // The fixture's file ids are fixed: the next fixture proof stores its rows under them.
  await env.DB.prepare("DELETE FROM files WHERE id IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(V2_FILES.map((file) => file.id)))
    .run();
});

describe("a record of facts without its SHA-256 in D1, bound at its proof's re-hash (G12)", () => {
  it("is bound as it is at the pass; edited after it, the public JSON and page say not verified, the edit never shown", async () => {
    const proof = await sealedWithFactsRecord();
    expect((await publicJson(proof.proofId)).body.verification.verdict).toBe("verified");
    await rehashPass();
    expect(await boundSha256(proof.proofId)).toBe(proof.sha256);
    const bound = await publicJson(proof.proofId);
    expect(bound.body.verification.verdict).toBe("verified");
    expect(bound.body.files[0].observed.decoded).toMatchObject({ width: 4000, height: 3000 });
    // The insider's edit of G12's probe: the signal gone, a service-observed size and the reported time changed.
    await editRecord(proof, (record) =>
      Object.assign(record.files[first]!, {
        signals: [],
        decoded: { width: 1, height: 1, duration_ms: null },
        captureContext: { method: "camera", device_time: FORGED_TIME, width: 1, height: 1 },
      }),
    );
    await expectRecordRefused(proof.proofId, [FORGED_TIME]);
    const owner = await callJson(`/v1/proofs/${proof.proofId}`, { key: proof.ownerKey });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ files: [], files_record: "altered" });
  });

  it("a bound record is never bound again: the next pass keeps D1's SHA-256 and records the edited record as a finding", async () => {
    const proof = await sealedWithFactsRecord();
    await rehashPass();
    expect(await boundSha256(proof.proofId)).toBe(proof.sha256);
    await editRecord(proof, (record) => Object.assign(record.files[first]!, { signals: [] }));
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashPass();
    expect(await boundSha256(proof.proofId)).toBe(proof.sha256);
    expect((await proofRehashes(env.DB, proof.proofId)).findings).toContainEqual(expect.objectContaining({ entry: "record.json", matched: false }));
    expect(alerts.mock.calls.some(([line]) => String(line).includes("sealed_object_altered") && String(line).includes(proof.proofId))).toBe(true);
    expect(notBoundLines(alerts, proof.proofId)).toEqual([]);
    await expectRecordRefused(proof.proofId, []);
  });

  it("a run binding a record another run has just bound (both read it unbound) leaves the first SHA-256 in D1", async () => {
    const proof = await sealedWithFactsRecord();
    await rehashPass();
    expect(await bindSealedRecord(database(env.DB), proof.proofId, "ab".repeat(32))).toBe(proof.sha256);
    expect(await boundSha256(proof.proofId)).toBe(proof.sha256);
  });

  it("missing or not of its shape at the pass: not bound, said on the error log, unavailable; restored, bound once the operator removes the finding", async () => {
    const proof = await sealedWithFactsRecord();
    const key = sealedRecordKey(proof.proofId, proof.run);
    const genuine = await (await env.FILES.get(key))!.arrayBuffer();
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const [damage, fault] of [
      [() => env.FILES.delete(key), "missing"],
      [() => env.FILES.put(key, JSON.stringify({ proof_id: proof.proofId, run: proof.run, files: { [first]: { signals: "x" } } })), "unreadable"],
    ] as const) {
      await damage();
      alerts.mockClear();
      await rehashPass();
      expect(await boundSha256(proof.proofId)).toBeNull();
      expect(notBoundLines(alerts, proof.proofId)).toEqual([expect.objectContaining({ fault })]);
      await expectRecordRefused(proof.proofId, []);
    }
    await env.FILES.put(key, genuine);
    alerts.mockClear();
    await rehashPass();
    expect(await boundSha256(proof.proofId)).toBeNull();
    expect(notBoundLines(alerts, proof.proofId)).toEqual([expect.objectContaining({ fault: "altered" })]);
    await expectRecordRefused(proof.proofId, []);
    // The operator's step (docs/operations.md): the backup's SHA-256 stored with the finding's removal, so what any
    // pass or read meets from then on is held to the backup, not bound as found.
    await env.DB.batch([
      env.DB.prepare("UPDATE proofs SET sealed_record_sha256 = ? WHERE id = ? AND sealed_record_sha256 IS NULL").bind(proof.sha256, proof.proofId),
      env.DB.prepare("DELETE FROM sealed_object_checks WHERE proof_id = ? AND entry = 'record.json'").bind(proof.proofId),
    ]);
    expect((await publicJson(proof.proofId)).body.verification.verdict).toBe("verified");
    await rehashPass();
    expect(await boundSha256(proof.proofId)).toBe(proof.sha256);
    expect((await publicJson(proof.proofId)).body.verification.verdict).toBe("verified");
  });

  // Forger session 8, H1: deleted before its first pass, put back forged after it, the record was bound at the next
  // pass, its finding dropped, and its report made from the forgery.
  it("missing at its pass, put back forged later: never bound, not verified, its finding kept, no report made", async () => {
    const proof = await sealedWithFactsRecord();
    const key = sealedRecordKey(proof.proofId, proof.run);
    const forged = await (await env.FILES.get(key))!.json<FactsRecord>();
    Object.assign(forged.files[first]!, { signals: [], decoded: { width: 1, height: 1, duration_ms: null } });
    await env.FILES.delete(key);
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await rehashPass();
    await env.FILES.put(key, JSON.stringify(forged));
    const findingOpen = async () =>
      expect((await proofRehashes(env.DB, proof.proofId)).findings).toContainEqual(expect.objectContaining({ entry: "record.json", matched: false }));
    for (const pass of [1, 2, 3]) {
      await expectRecordRefused(proof.proofId, ['"width":1,"height":1']);
      await findingOpen();
      alerts.mockClear();
      await rehashPass();
      expect(await boundSha256(proof.proofId), `pass ${pass}`).toBeNull();
      expect(notBoundLines(alerts, proof.proofId)).toEqual([expect.objectContaining({ fault: "altered" })]);
    }
    await expectRecordRefused(proof.proofId, ['"width":1,"height":1']);
    await findingOpen();
    const owner = await callJson(`/v1/proofs/${proof.proofId}`, { key: proof.ownerKey });
    expect(owner.body).toMatchObject({ files: [], files_record: "altered" });
    const later = new Date(clock + 30 * 86_400_000).toISOString();
    expect((await missingReports(env.DB, later, 10_000)).map((report) => report.proofId)).not.toContain(proof.proofId);
    const makePdf = vi.fn(async () => new Uint8Array([37, 80, 68, 70]));
    const deps = { env, db: database(env.DB), pictureUrl: async (key: string) => ({ url: `https://storage.test/${key}` }), makePdf };
    expect(await makeProofReport(deps, proof.proofId, "proof")).toBe("record_unavailable");
    expect(makePdf).not.toHaveBeenCalled();
  });
});

describe("a record of facts holding entries for other files than its proof's (G11's residual)", () => {
  const extraEntries: [string, (record: FactsRecord) => void][] = [
    [
      "a thousand empty entries more",
      (record) => Object.assign(record.files, Object.fromEntries(Array.from({ length: 1000 }, (_, n) => [n.toString(36), {}]))),
    ],
    ["one entry naming another file's id", (record) => Object.assign(record.files, { med_00another0000000000000: { ...record.files[first] } })],
  ];
  it.each(extraEntries)("%s: unreadable, said without a 500, and never bound", async (_, edit) => {
    const proof = await sealedWithFactsRecord();
    await editRecord(proof, edit);
    await expectRecordRefused(proof.proofId, []);
    const owner = await callJson(`/v1/proofs/${proof.proofId}`, { key: proof.ownerKey });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ files: [], files_record: "unreadable" });
    expect((await call(`/v1/public/proofs/${proof.proofId}/package`)).status).toBe(409);
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashPass();
    expect(await boundSha256(proof.proofId)).toBeNull();
    expect(notBoundLines(alerts, proof.proofId)).toEqual([expect.objectContaining({ fault: "unreadable" })]);
  });
});
