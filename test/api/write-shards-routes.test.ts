import { describe, expect, it } from "vitest";
import { admin, callJson } from "./support/client.ts";
import { newId } from "../../src/lib/ids.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import {
  insertCompletedCapture,
  insertUploadedFile,
  openEveryShard,
  SHARD_BINDING,
  shardBindings as bindings,
  type TestShard as Shard,
} from "./support/write-shards.ts";

/**
 * Authenticated routes finding a session or proof by id (docs/adr/0070): an organization with write shards has
 * them on every shard of its list, and reads each in the shard its id names when that is one of the caller's
 * shards; any other id answers exactly as an unknown one. The tests' configuration keeps new organizations on
 * 00 (vitest.config.ts); this file opens all three.
 */
openEveryShard();

/** An organization on `home` given `writeShards` by the operator before its test key is made (and cached). */
async function organization(home: Shard, writeShards: Shard[]) {
  const created = await admin("/admin/v1/organizations", { name: `Home ${home}`, shard: home });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  for (const shard of writeShards) expect((await admin(`/admin/v1/organizations/${id}/write-shards`, { shard })).status).toBe(200);
  const key = await admin(`/admin/v1/organizations/${id}/api-keys`, { mode: "test" });
  expect(key.status).toBe(201);
  return { id, key: key.body.key as string };
}

/**
 * A completed session and its pending proof with one uploaded file, written straight into `shard` with ids naming
 * it, as creation and capture write them in an organization's write shard; the organization's row must be there
 * (its home row, or the stub `add-write-shard` writes).
 */
async function insertProofOn(shard: Shard, organizationId: string) {
  const now = new Date().toISOString();
  const { sessionId, proofId } = await insertCompletedCapture(shard, organizationId, { createdAt: now, status: "pending" });
  const fileId = newId("med");
  await insertUploadedFile(shard, { id: fileId, sessionId, proofId, createdAt: now });
  return { sessionId, proofId, fileId };
}

/** The stub row an `add-write-shard` that failed before its list row leaves in `shard`. */
async function insertStubOn(shard: Shard, organizationId: string) {
  const now = new Date().toISOString();
  await bindings[SHARD_BINDING[shard]]
    .prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES (?, 'Stub', 0, ?, ?)")
    .bind(organizationId, now, now)
    .run();
}

async function expectFound(key: string, made: { sessionId: string; proofId: string; fileId: string }) {
  const session = await callJson(`/v1/capture-sessions/${made.sessionId}`, { key });
  expect(session.status).toBe(200);
  expect(session.body).toMatchObject({ id: made.sessionId, status: "completed", proof_id: made.proofId });
  const proof = await callJson(`/v1/proofs/${made.proofId}`, { key });
  expect(proof.status).toBe(200);
  expect(proof.body).toMatchObject({ id: made.proofId, status: "pending", session_id: made.sessionId });
  // Its files are read in the proof's shard too.
  expect(proof.body.files.map((file: { id: string }) => file.id)).toEqual([made.fileId]);
}

async function expectNotFound(key: string, ids: { sessionId: string; proofId: string }) {
  const session = await callJson(`/v1/capture-sessions/${ids.sessionId}`, { key });
  expect(session.status, ids.sessionId).toBe(404);
  expect(session.body.code).toBe("capture_session_not_found");
  const proof = await callJson(`/v1/proofs/${ids.proofId}`, { key });
  expect(proof.status, ids.proofId).toBe(404);
  expect(proof.body.code).toBe("proof_not_found");
}

describe("by-id routes of an organization with write shards", () => {
  it("reads a session and a proof of its write shard, and still those of its home", async () => {
    const org = await organization("00", ["01"]);
    await expectFound(org.key, await insertProofOn("01", org.id));
    await expectFound(org.key, await insertProofOn("00", org.id));
  });

  it("reads a session created through the API in its write shard, and the proof its capture made there", async () => {
    const org = await organization("00", ["01"]);
    const created = await createSession(org.key, baseSession());
    expect(created.status).toBe(201);
    const sessionId: string = created.body.id;
    expect(sessionId).toMatch(/^cps_01/);
    expect((await callJson(`/v1/capture-sessions/${sessionId}`, { key: org.key })).body).toMatchObject({ id: sessionId, status: "open" });
    const token = tokenOf(created.body.capture_url);
    const { fileId } = await uploadPhoto(token);
    const done = await captureCall(token, "/complete", { body: {} });
    expect(done.status).toBe(200);
    expect(done.body.proof_id).toMatch(/^prf_01/);
    await expectFound(org.key, { sessionId, proofId: done.body.proof_id, fileId });
  });

  it("reads a write shard added after its key was cached, without waiting for the cache (forger session 9, W5)", async () => {
    const org = await organization("00", []);
    // The key's caller is now cached in this isolate with the home shard alone, for 10 s.
    expect((await callJson("/v1/me", { key: org.key })).status).toBe(200);
    expect((await admin(`/admin/v1/organizations/${org.id}/write-shards`, { shard: "01" })).status).toBe(200);
    await expectFound(org.key, await insertProofOn("01", org.id));
    // The list read again names 01 alone: 02 stays closed to it, stub or not.
    await insertStubOn("02", org.id);
    await expectNotFound(org.key, await insertProofOn("02", org.id));
  });

  it("reads every shard of its list, an earlier write shard included", async () => {
    const org = await organization("01", ["02", "00"]);
    for (const shard of ["00", "01", "02"] as const) await expectFound(org.key, await insertProofOn(shard, org.id));
  });

  it("answers 404 for an id naming a shard not in its list, even where a stub of it holds its rows", async () => {
    const org = await organization("00", ["01"]);
    // A stub left in 02 by an unfinished add-write-shard: 02 is not the organization's until its list row is written.
    await insertStubOn("02", org.id);
    const stray = await insertProofOn("02", org.id);
    await expectNotFound(org.key, stray);
  });

  it("answers 404 for another organization's session and proof, on its shard or on a shard they share", async () => {
    const org = await organization("00", ["01"]);
    const other = await organization("02", []);
    await expectNotFound(org.key, await insertProofOn("02", other.id));
    const neighbour = await organization("01", []);
    await expectNotFound(org.key, await insertProofOn("01", neighbour.id));
    // And the other way: the neighbour living on 01 never reads the organization's write-shard rows there.
    await expectNotFound(neighbour.key, await insertProofOn("01", org.id));
  });

  it("answers an id naming no shard of the deployment, or a malformed one, as an unknown id", async () => {
    const org = await organization("00", ["01"]);
    const random = "a".repeat(20);
    for (const shard of ["03", "zz", "0A"]) await expectNotFound(org.key, { sessionId: `cps_${shard}${random}`, proofId: `prf_${shard}${random}` });
    await expectNotFound(org.key, { sessionId: "cps_1", proofId: "prf_1" });
  });

  it("opens no write shard for an organization without one", async () => {
    const org = await organization("00", []);
    await insertStubOn("01", org.id);
    await expectNotFound(org.key, await insertProofOn("01", org.id));
    await expectFound(org.key, await insertProofOn("00", org.id));
  });
});
