import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { MAX_TEMPLATE_BYTES, templateBytes } from "../../src/capture-templates/template-size.ts";
import { deleteUnusedCaptureSessions } from "../../src/sweeps/delete-unused-capture-sessions.ts";
import { deleteWebhookDeliveryBodies } from "../../src/sweeps/delete-webhook-delivery-bodies.ts";
import { RETENTION_DAYS } from "../../src/retention.ts";
import { runSweeps } from "../../src/scheduled.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { workerContext } from "../../src/domain/context.ts";

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();

const template = (extra: Record<string, unknown> = {}) => ({
  name: "Check-in",
  default_locale: "en",
  welcome: { title: "Welcome" },
  steps: [{ id: "front", label: "Front", instruction: "Photograph the front." }],
  ...extra,
});

/** A text in `languages` languages, each `length` characters long (3-byte characters: the worst case for UTF-8). */
const longText = (languages: number, length: number) =>
  Object.fromEntries(
    Array.from({ length: languages }, (_, i) => [
      i === 0 ? "en" : `x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
      "é€".repeat(length / 2),
    ]),
  );

const snapshotRows = async (sha256: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM template_snapshots WHERE sha256 = ?").bind(sha256).first<{ n: number }>())!.n;
const sessionRow = (id: string) => env.DB.prepare("SELECT * FROM capture_sessions WHERE id = ?").bind(id).first<any>();

describe("template snapshots stored once per content", () => {
  it("keeps one snapshot for every session made from the same template, keyed by the SHA-256 of its canonical JSON", async () => {
    const org = await createOrganization();
    const created = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    const sessions = await Promise.all([1, 2, 3].map(() => createSession(org.testKey, { ...baseSession(), template_id: created.body.id })));
    const rows = await Promise.all(sessions.map((session) => sessionRow(session.body.id)));
    expect(new Set(rows.map((row) => row.template_sha256)).size).toBe(1);
    expect(rows[0]).not.toHaveProperty("template_snapshot");
    const sha256 = rows[0].template_sha256 as string;
    expect(await snapshotRows(sha256)).toBe(1);
    const stored = await env.DB.prepare("SELECT content FROM template_snapshots WHERE sha256 = ?").bind(sha256).first<{ content: string }>();
    expect(await sha256Hex(stored!.content)).toBe(sha256);
    expect(JSON.parse(stored!.content)).toMatchObject({ id: created.body.id, steps: [{ id: "front" }] });

    // The capture page reads the session's template through its snapshot.
    const token = new URL(sessions[0]!.body.capture_url).pathname.split("/").pop()!;
    const view = await callJson(`${CAPTURE}/c/${token}/session`);
    expect(view.status).toBe(200);
    expect(view.body.steps.map((step: { id: string }) => step.id)).toEqual(["front"]);

    // An edited (test) template is new content: a new snapshot, the earlier sessions keep theirs.
    await callJson(`/v1/capture-templates/${created.body.id}`, { key: org.testKey, method: "PATCH", body: { name: "Check-in v2" } });
    const later = await createSession(org.testKey, { ...baseSession(), template_id: created.body.id });
    const laterSha = (await sessionRow(later.body.id)).template_sha256 as string;
    expect(laterSha).not.toBe(sha256);
    expect(await snapshotRows(laterSha)).toBe(1);
    expect(await snapshotRows(sha256)).toBe(1);
  });
});

describe("template size limit", () => {
  it("refuses a template over the limit with 422 template_too_large, on creation and on an edit, and accepts one under it", async () => {
    const org = await createOrganization();
    // 20 steps in 20 languages with the longest texts the field rules allow: about 3 MB of UTF-8, over a D1 row.
    const huge = template({
      steps: Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, label: longText(20, 2000), instruction: longText(20, 2000) })),
      welcome: { title: longText(20, 2000) },
    });
    const refused = await callJson("/v1/capture-templates", { key: org.testKey, body: huge });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "template_too_large" });
    expect(refused.body.detail).toContain(String(MAX_TEMPLATE_BYTES));

    // 20 languages of its own, the most allowed; the built-in thanks add nine more that do not count.
    const steps = (count: number, languages = 20) =>
      Array.from({ length: count }, (_, i) => ({ id: `s${i}`, label: `Step ${i}`, instruction: longText(languages, 1000) }));
    const fitting = template({ steps: steps(9) });
    expect(templateBytes(fitting)).toBeLessThan(MAX_TEMPLATE_BYTES);
    const accepted = await callJson("/v1/capture-templates", { key: org.testKey, body: fitting });
    expect(accepted.status).toBe(201);
    expect(Object.keys(accepted.body.completion.title)).toHaveLength(10);
    // Stored with the built-in thanks, 29 languages in all, it is still under the limit.
    expect(
      templateBytes({ default_locale: "en", welcome: accepted.body.welcome, steps: accepted.body.steps, completion: accepted.body.completion }),
    ).toBeLessThan(MAX_TEMPLATE_BYTES);
    // A session snapshots it whole, within D1's row and statement limits (enforced by the test setup).
    const session = await createSession(org.testKey, { ...baseSession(), template_id: accepted.body.id });
    expect(session.status).toBe(201);
    const grown = await callJson(`/v1/capture-templates/${accepted.body.id}`, { key: org.testKey, method: "PATCH", body: { steps: steps(10) } });
    expect(grown.status).toBe(422);
    expect(grown.body.code).toBe("template_too_large");
  });

  it("refuses a 21st language of the template's own with 422 too_many_languages, under the size limit", async () => {
    const org = await createOrganization();
    const steps = Array.from({ length: 9 }, (_, i) => ({ id: `s${i}`, label: `Step ${i}`, instruction: longText(21, 1000) }));
    const over = template({ steps });
    expect(templateBytes(over)).toBeLessThan(MAX_TEMPLATE_BYTES);
    const refused = await callJson("/v1/capture-templates", { key: org.testKey, body: over });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "too_many_languages", field: "/steps/0/instruction/xua" });
    expect(refused.body.detail).toContain("21 languages");
  });

  it("is documented in the schema with its code", async () => {
    const document = await callJson("/openapi.json");
    const text = JSON.stringify(document.body);
    expect(document.body.components.schemas.CreateCaptureTemplate.description).toContain("500,000 bytes");
    expect(text).toContain("template_too_large");
  });
});

/** A session that never became a proof, with an uploaded file and an unfinished multipart upload. */
async function unusedSession(organizationId: string, status: "expired" | "rejected", expiredDaysAgo: number, snapshot = `{"unused":"${crypto.randomUUID()}"}`) {
  const id = `cps_${crypto.randomUUID().replaceAll("-", "")}`;
  const sha256 = await sha256Hex(snapshot);
  const at = daysAgo(expiredDaysAgo);
  const uploadedKey = `captures/${id}/med_a`;
  const partialKey = `captures/${id}/med_b`;
  await env.FILES.put(uploadedKey, "a photo");
  const multipart = await env.FILES.createMultipartUpload(partialKey);
  await multipart.uploadPart(1, "x".repeat(5 * 1024 * 1024));
  await env.DB.batch([
    env.DB.prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)").bind(sha256, snapshot, at),
    env.DB.prepare(
      `INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, template_sha256, locale, created_at, updated_at, expires_at)
       VALUES (?, ?, 'test', ?, ?, 'ref', 'provider', ?, 'en', ?, ?, ?)`,
    ).bind(id, organizationId, status, crypto.randomUUID(), sha256, at, at, at),
    env.DB.prepare(
      `INSERT INTO files (id, session_id, step_id, kind, content_type, size, sha256, status, original_key, multipart_upload_id, created_at)
       VALUES (?, ?, 'photos', 'photo', 'image/jpeg', 7, ?, 'uploaded', ?, NULL, ?), (?, ?, 'photos', 'video', 'video/mp4', 50000000, ?, 'declared', ?, ?, ?)`,
    ).bind(
      `med_${crypto.randomUUID()}`,
      id,
      "a".repeat(64),
      uploadedKey,
      at,
      `med_${crypto.randomUUID()}`,
      id,
      "b".repeat(64),
      partialKey,
      multipart.uploadId,
      at,
    ),
  ]);
  return { id, sha256, uploadedKey, partialKey, uploadId: multipart.uploadId };
}

describe("retention of unused capture sessions", () => {
  it(`deletes expired and rejected sessions ${RETENTION_DAYS.unusedCaptureSession} days after their link expired, with their files, objects, multipart uploads and unused snapshot`, async () => {
    const org = await createOrganization();
    const expired = await unusedSession(org.id, "expired", RETENTION_DAYS.unusedCaptureSession + 1);
    const rejected = await unusedSession(org.id, "rejected", RETENTION_DAYS.unusedCaptureSession + 2);
    const recent = await unusedSession(org.id, "expired", RETENTION_DAYS.unusedCaptureSession - 1);
    const sealed = await insertPendingProof(org.id, "test", 1);
    await env.DB.prepare("UPDATE capture_sessions SET expires_at = ? WHERE id = ?").bind(daysAgo(400), sealed.sessionId).run();

    await deleteUnusedCaptureSessions(workerContext(env), new Date());

    for (const gone of [expired, rejected]) {
      expect(await sessionRow(gone.id)).toBeNull();
      expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM files WHERE session_id = ?").bind(gone.id).first<{ n: number }>())!.n).toBe(0);
      expect(await env.FILES.head(gone.uploadedKey)).toBeNull();
      await expect(env.FILES.resumeMultipartUpload(gone.partialKey, gone.uploadId).uploadPart(2, "y")).rejects.toThrow();
      expect(await snapshotRows(gone.sha256)).toBe(0);
    }
    expect(await sessionRow(recent.id)).not.toBeNull();
    expect(await env.FILES.head(recent.uploadedKey)).not.toBeNull();
    expect(await snapshotRows(recent.sha256)).toBe(1);
    expect(await sessionRow(sealed.sessionId)).not.toBeNull();
    expect(await env.FILES.head(`captures/${sealed.sessionId}/${sealed.fileIds[0]}`)).not.toBeNull();
    await env.FILES.resumeMultipartUpload(recent.partialKey, recent.uploadId).abort();
  });

  it("runs with the cron's other sweeps", async () => {
    const org = await createOrganization();
    const old = await unusedSession(org.id, "expired", RETENTION_DAYS.unusedCaptureSession + 1);
    const oldDelivery = await delivery(org.id, "succeeded", RETENTION_DAYS.webhookDeliveryBody + 1);
    await runSweeps(workerContext(env), new Date());
    expect(await sessionRow(old.id)).toBeNull();
    // Emptied, then moved to the archive in the same round (docs/adr/0067), where the route still reads it.
    expect(await env.DB.prepare("SELECT 1 FROM webhook_deliveries WHERE id = ?").bind(oldDelivery).first()).toBeNull();
    const read = await callJson(`/v1/webhook-deliveries/${oldDelivery}`, { key: org.testKey });
    expect(read.body).toMatchObject({ status: "succeeded", request_body: null, body_deleted_at: expect.any(String) });
  });

  it("keeps a snapshot that another session still uses", async () => {
    const org = await createOrganization();
    const shared = `{"shared":"${crypto.randomUUID()}"}`;
    const old = await unusedSession(org.id, "expired", RETENTION_DAYS.unusedCaptureSession + 5, shared);
    const young = await unusedSession(org.id, "expired", 1, shared);
    await deleteUnusedCaptureSessions(workerContext(env), new Date());
    expect(await sessionRow(old.id)).toBeNull();
    expect(await snapshotRows(young.sha256)).toBe(1);
    await env.FILES.resumeMultipartUpload(young.partialKey, young.uploadId).abort();
  });

  it("still deletes a session whose multipart upload is already gone (R2 cleans unfinished uploads after 7 days)", async () => {
    const org = await createOrganization();
    const gone = await unusedSession(org.id, "expired", RETENTION_DAYS.unusedCaptureSession + 1);
    await env.FILES.resumeMultipartUpload(gone.partialKey, gone.uploadId).abort();
    await env.DB.prepare("UPDATE files SET multipart_upload_id = 'no-such-upload' WHERE session_id = ? AND status = 'declared'").bind(gone.id).run();
    await deleteUnusedCaptureSessions(workerContext(env), new Date());
    expect(await sessionRow(gone.id)).toBeNull();
    expect(await env.FILES.head(gone.uploadedKey)).toBeNull();
  });

  it("works through a backlog of 120 sessions in one run, within D1's parameter limit", async () => {
    const org = await createOrganization();
    const at = daysAgo(RETENTION_DAYS.unusedCaptureSession + 3);
    const ids = Array.from({ length: 120 }, () => `cps_${crypto.randomUUID().replaceAll("-", "")}`);
    const sha256 = await sha256Hex("{}");
    await env.DB.batch([
      env.DB.prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, '{}', ?)").bind(sha256, at),
      ...ids.map((id) =>
        env.DB.prepare(
          `INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, template_sha256, locale, created_at, updated_at, expires_at)
           VALUES (?, ?, 'test', 'expired', ?, 'ref', 'provider', ?, 'en', ?, ?, ?)`,
        ).bind(id, org.id, crypto.randomUUID(), sha256, at, at, at),
      ),
    ]);
    await deleteUnusedCaptureSessions(workerContext(env), new Date());
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE organization_id = ?").bind(org.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });
});

async function delivery(organizationId: string, status: string, createdDaysAgo: number) {
  const id = `whd_${crypto.randomUUID().replaceAll("-", "")}`;
  const at = daysAgo(createdDaysAgo);
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, event, status, attempts, request_body, response_status, response_body_start, failure_reason, created_at, updated_at)
       VALUES (?, ?, 'test', 'whe_x', ?, 'proof.sealed', ?, 1, '{"event":"proof.sealed"}', 500, 'oops', NULL, ?, ?)`,
    ).bind(id, organizationId, `evt_${crypto.randomUUID()}`, status, at, at),
    env.DB.prepare(
      "INSERT INTO webhook_attempts (id, delivery_id, attempt, webhook_id, started_at, duration_ms, response_status, response_body_start) VALUES (?, ?, 1, 'wh_1', ?, 12, 500, 'oops')",
    ).bind(`wha_${crypto.randomUUID()}`, id, at),
  ]);
  return id;
}

describe(`retention of webhook delivery bodies (${RETENTION_DAYS.webhookDeliveryBody} days)`, () => {
  it("empties the bodies of finished deliveries past the period, says so when read, and refuses to send them again", async () => {
    const org = await createOrganization();
    const old = await delivery(org.id, "abandoned", RETENTION_DAYS.webhookDeliveryBody + 1);
    const young = await delivery(org.id, "succeeded", RETENTION_DAYS.webhookDeliveryBody - 1);
    const stillRetrying = await delivery(org.id, "retrying", RETENTION_DAYS.webhookDeliveryBody + 1);

    await deleteWebhookDeliveryBodies(workerContext(env), new Date());

    const read = await callJson(`/v1/webhook-deliveries/${old}`, { key: org.testKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: "abandoned", request_body: null, response_body_start: null, response_status: 500 });
    expect(Date.parse(read.body.body_deleted_at)).toBeGreaterThan(Date.now() - 60_000);
    const attempt = await env.DB.prepare("SELECT response_body_start FROM webhook_attempts WHERE delivery_id = ?").bind(old).first<any>();
    expect(attempt.response_body_start).toBeNull();
    const retry = await callJson(`/v1/webhook-deliveries/${old}/retry`, { key: org.testKey, method: "POST" });
    expect(retry.status).toBe(410);
    expect(retry.body.code).toBe("webhook_delivery_body_deleted");

    for (const kept of [young, stillRetrying]) {
      const body = (await callJson(`/v1/webhook-deliveries/${kept}`, { key: org.testKey })).body;
      expect(body).toMatchObject({ request_body: '{"event":"proof.sealed"}', response_body_start: "oops", body_deleted_at: null });
    }
    const response = await call(`/v1/webhook-deliveries/${young}`, { key: org.testKey });
    await response.body?.cancel();
  });
});
