import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { admin, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { runCron } from "./support/queues.ts";
import { database } from "../../src/db/client.ts";
import { findSessionById } from "../../src/storage/capture-sessions.ts";
import { completeCapture } from "../../src/capture-sessions/complete-capture.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";

async function events(organizationId: string) {
  const rows = await env.DB.prepare("SELECT type, data FROM events WHERE organization_id = ? ORDER BY created_at, id").bind(organizationId).all<any>();
  return rows.results.map((row) => ({ type: row.type as string, data: JSON.parse(row.data) }));
}

async function sealedBeforeWithShots(organizationId: string, mode: "test" | "live", shots: number) {
  const before = await insertPendingProof(organizationId, mode, shots);
  await env.DB.prepare("UPDATE proofs SET status = 'sealed', holds_reservation = 0 WHERE id = ?").bind(before.proofId).run();
  const session = await env.DB.prepare("SELECT template_sha256 FROM capture_sessions WHERE id = ?").bind(before.sessionId).first<any>();
  const { BUILT_IN_TEMPLATE } = await import("../../src/capture-templates/snapshot.ts");
  await setSessionSnapshot(before.sessionId, JSON.stringify(BUILT_IN_TEMPLATE));
  expect(session).not.toBeNull();
  const proof = await env.DB.prepare("SELECT external_reference FROM proofs WHERE id = ?").bind(before.proofId).first<any>();
  return { proofId: before.proofId, reference: proof.external_reference as string };
}

describe("completing a capture", () => {
  it("creates a pending proof, moves the live reservation to it, records capture_session.completed, redirects", async () => {
    const org = await createOrganization({ balance: 2 });
    await callJson("/v1/settings", { key: org.liveKey, method: "PATCH", body: { allowed_return_origins: ["https://shop.example"] } });
    const created = await createSession(org.liveKey, { ...baseSession(), stage: "checkin", return_url: "https://shop.example/back?a=1" });
    const token = tokenOf(created.body.capture_url);
    const { fileId } = await uploadPhoto(token);
    const done = await captureCall(token, "/complete", { body: {} });
    expect(done.status).toBe(200);
    const proofId = done.body.proof_id;
    expect(done.body).toEqual({
      proof_id: proofId,
      session_id: created.body.id,
      redirect_url: `https://shop.example/back?a=1&proof_id=${proofId}&session_id=${created.body.id}`,
    });
    const proof = await env.DB.prepare("SELECT * FROM proofs WHERE id = ?").bind(proofId).first<any>();
    expect(proof).toMatchObject({ status: "pending", holds_reservation: 1, session_id: created.body.id, stage: "checkin" });
    const file = await env.DB.prepare("SELECT proof_id FROM files WHERE id = ?").bind(fileId).first<any>();
    expect(file.proof_id).toBe(proofId);
    const session = await callJson(`/v1/capture-sessions/${created.body.id}`, { key: org.liveKey });
    expect(session.body).toMatchObject({ status: "completed", proof_id: proofId });
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body).toEqual({ balance: 2, available: 1 });
    const recorded = await events(org.id);
    expect(recorded).toEqual([
      {
        type: "capture_session.completed",
        data: {
          session_id: created.body.id,
          proof_id: proofId,
          external_reference: created.body ? expect.any(String) : "",
          party: "provider",
          stage: "checkin",
          completed_at: expect.any(String),
        },
      },
    ]);
    const again = await captureCall(token, "/complete", { body: {} });
    expect(again.body).toEqual(done.body);
    expect(await events(org.id)).toHaveLength(1);
    expect((await captureCall(token, "/session")).body.code).toBe("capture_link_used");
  });

  it("gives six concurrent completions of one session (two tabs, a retry) the same answer: one proof, one event, one credit", async () => {
    const org = await createOrganization({ balance: 3 });
    const created = await createSession(org.liveKey, baseSession());
    const token = tokenOf(created.body.capture_url);
    await uploadPhoto(token);
    const answers = await Promise.all(Array.from({ length: 6 }, () => captureCall(token, "/complete", { body: {} })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.proof_id)).size).toBe(1);
    const proofs = await env.DB.prepare("SELECT COUNT(*) AS n FROM proofs WHERE session_id = ?").bind(created.body.id).first<any>();
    expect(proofs.n).toBe(1);
    expect((await events(org.id)).filter((event) => event.type === "capture_session.completed")).toHaveLength(1);
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body).toEqual({ balance: 3, available: 2 });
  });

  it("refuses to complete with a missing required step or an upload not in storage", async () => {
    const org = await createOrganization();
    const created = await createSession(org.testKey, baseSession());
    const token = tokenOf(created.body.capture_url);
    const missing = await captureCall(token, "/complete", { body: {} });
    expect(missing.body).toMatchObject({ status: 422, code: "missing_required_steps", steps: ["photos"] });
    const declared = await captureCall(token, "/files", {
      body: {
        step_id: "photos",
        content_type: "image/jpeg",
        size: 100,
        sha256: "a".repeat(64),
        capture: { method: "camera", device_time: new Date().toISOString() },
      },
    });
    const incomplete = await captureCall(token, "/complete", { body: {} });
    expect(incomplete.body).toMatchObject({ status: 422, code: "upload_incomplete", files: [declared.body.file_id] });
  });

  it("requires an after to have at least as many shots per step as its before", async () => {
    const org = await createOrganization();
    const before = await sealedBeforeWithShots(org.id, "test", 2);
    const after = await createSession(org.testKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
    const token = tokenOf(after.body.capture_url);
    expect((await captureCall(token, "/session")).body.before_shots).toEqual({ photos: 2 });
    await uploadPhoto(token);
    expect((await captureCall(token, "/complete", { body: {} })).body.code).toBe("missing_required_steps");
    await uploadPhoto(token);
    expect((await captureCall(token, "/complete", { body: {} })).status).toBe(200);
  });

  for (let round = 1; round <= 3; round++) {
    it(`lets exactly one of four concurrent "after" completions win the before (round ${round})`, async () => {
      const org = await createOrganization({ balance: 10, rateLimit: 1000 });
      const before = await sealedBeforeWithShots(org.id, "live", 1);
      const tokens: string[] = [];
      for (let i = 0; i < 4; i++) {
        const after = await createSession(org.liveKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
        expect(after.status).toBe(201);
        const token = tokenOf(after.body.capture_url);
        await uploadPhoto(token);
        tokens.push(token);
      }
      expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body.available).toBe(6);
      const results = await Promise.all(tokens.map((token) => captureCall(token, "/complete", { body: {} })));
      const winners = results.filter((r) => r.status === 200);
      const losers = results.filter((r) => r.status === 409);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(3);
      for (const loser of losers) expect(loser.body.code).toBe("compare_to_already_used");
      const beforeRow = await env.DB.prepare("SELECT compared_by FROM proofs WHERE id = ?").bind(before.proofId).first<any>();
      expect(beforeRow.compared_by).toBe(winners[0]!.body.proof_id);
      const recorded = await events(org.id);
      expect(recorded.filter((e) => e.type === "capture_session.completed")).toHaveLength(1);
      const rejected = recorded.filter((e) => e.type === "capture_session.rejected");
      expect(rejected).toHaveLength(3);
      expect(rejected[0]!.data).toMatchObject({ code: "compare_to_already_used", compare_to: before.proofId, party: "provider" });
      const log = await callJson("/v1/events?type=capture_session.rejected", { key: org.liveKey });
      expect(log.body.data).toHaveLength(3);
      expect((await callJson("/v1/events", { key: org.testKey })).body.data).toHaveLength(0);
      const proofCount = await env.DB.prepare("SELECT COUNT(*) AS n FROM proofs WHERE compare_to = ?").bind(before.proofId).first<any>();
      expect(proofCount.n).toBe(1);
      // Only the winner still holds a promise: 10 - 1 pending proof; the losers used no credit.
      expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body).toEqual({ balance: 10, available: 9 });
    });
  }

  it('answers a losing "after" the same 409 on every retry and every page call, never "used"', async () => {
    const org = await createOrganization({ balance: 10, rateLimit: 1000 });
    const before = await sealedBeforeWithShots(org.id, "live", 1);
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const after = await createSession(org.liveKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
      const token = tokenOf(after.body.capture_url);
      await uploadPhoto(token);
      tokens.push(token);
    }
    const [winner, loser] = tokens as [string, string];
    expect((await captureCall(winner, "/complete", { body: {} })).status).toBe(200);
    for (const attempt of ["first", "retry", "second retry"]) {
      const answer = await captureCall(loser, "/complete", { body: {} });
      expect(answer.body, attempt).toMatchObject({ status: 409, code: "compare_to_already_used", locale: "en" });
    }
    // A reload of the page reads the session: the same refusal, so the page explains it rather than thanking.
    expect((await captureCall(loser, "/session")).body).toMatchObject({ status: 409, code: "compare_to_already_used" });
    expect((await captureCall(winner, "/session")).body).toMatchObject({ status: 410, code: "capture_link_used" });
    const rejected = (await events(org.id)).filter((event) => event.type === "capture_session.rejected");
    expect(rejected).toHaveLength(1);
  });
});

describe("completion racing the expiry sweep", () => {
  it("makes no proof for a session the sweep expired while it was completing, and gives its before back", async () => {
    const org = await createOrganization({ balance: 10, rateLimit: 1000 });
    const before = await sealedBeforeWithShots(org.id, "live", 1);
    const late = await createSession(org.liveKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
    await uploadPhoto(tokenOf(late.body.capture_url));
    const session = await findSessionById(database(env.DB), late.body.id);
    // The completion passed its checks; the sweep expires the session before its batch commits.
    await env.DB.prepare("UPDATE capture_sessions SET status = 'expired', holds_reservation = 0 WHERE id = ?").bind(late.body.id).run();
    const lock = (beforeId: string) => env.PROOF_LINK_LOCK.get(env.PROOF_LINK_LOCK.idFromName(beforeId));
    const deps = {
      env,
      db: database(env.DB),
      now: new Date(),
      claimBefore: async (beforeId: string, sessionId: string) => (await lock(beforeId).claim(sessionId)).won,
      releaseBefore: async (beforeId: string, sessionId: string) => void (await lock(beforeId).release(sessionId)),
      enqueueSealing: async () => undefined,
      publishEvents: async () => undefined,
    };
    await expect(completeCapture({ ctx: deps, input: { session: session! } })).rejects.toMatchObject({ code: "capture_link_expired" });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM proofs WHERE session_id = ?").bind(late.body.id).first<any>()).n).toBe(0);
    expect((await events(org.id)).filter((event) => event.type === "capture_session.completed")).toHaveLength(0);
    expect((await env.DB.prepare("SELECT compared_by FROM proofs WHERE id = ?").bind(before.proofId).first<any>()).compared_by).toBeNull();
    // Another "after" can still complete against the before.
    const next = await createSession(org.liveKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
    const token = tokenOf(next.body.capture_url);
    await uploadPhoto(token);
    expect((await captureCall(token, "/complete", { body: {} })).status).toBe(200);
  });
});

describe("expiry sweep", () => {
  it("expires open sessions past their time and releases their reservations", async () => {
    const org = await createOrganization({ balance: 1 });
    const created = await createSession(org.liveKey, baseSession());
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body.available).toBe(0);
    await env.DB.prepare("UPDATE capture_sessions SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), created.body.id)
      .run();
    await runCron();
    expect((await callJson(`/v1/capture-sessions/${created.body.id}`, { key: org.liveKey })).body.status).toBe("expired");
    expect((await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 0, reason: "read" })).body.available).toBe(1);
    expect((await createSession(org.liveKey, baseSession())).status).toBe(201);
    expect((await events(org.id)).map((e) => e.type)).not.toContain("capture_session.expired");
  });
});
