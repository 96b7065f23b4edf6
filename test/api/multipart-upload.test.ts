import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, tokenOf } from "./support/capture.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";

async function videoSession() {
  const org = await createOrganization();
  const template = await callJson("/v1/capture-templates", {
    key: org.testKey,
    body: { name: "Video", welcome: { title: "Film" }, steps: [{ id: "walkaround", label: "Walk", instruction: "Walk around", kind: "video", max_count: 2 }] },
  });
  const created = await createSession(org.testKey, { ...baseSession(), template_id: template.body.id });
  return tokenOf(created.body.capture_url);
}

async function declareVideo(token: string, bytes: Uint8Array) {
  return captureCall(token, "/files", {
    body: {
      step_id: "walkaround",
      content_type: "video/mp4",
      size: bytes.length,
      sha256: await sha256Hex(bytes),
      capture: { method: "camera", device_time: new Date().toISOString(), duration_ms: 8000 },
    },
  });
}

const putPart = (part: any, bytes: Uint8Array) =>
  call(part.url, { method: "PUT", rawBody: bytes.slice(part.offset, part.offset + part.length) as unknown as string, headers: part.headers });

describe("videos above 32 MiB upload in parts", () => {
  it("resumes at the first missing part and checks the assembled file's SHA-256", { timeout: 60_000 }, async () => {
    const token = await videoSession();
    const bytes = new Uint8Array(33 * 1024 * 1024 + 5);
    for (let i = 0; i < bytes.length; i += 65536) bytes.set(crypto.getRandomValues(new Uint8Array(Math.min(65536, bytes.length - i))), i);
    const declared = await declareVideo(token, bytes);
    expect(declared.status).toBe(201);
    const { parts, complete } = declared.body.upload;
    expect(parts.map((p: any) => p.length)).toEqual([16 * 1024 * 1024, 16 * 1024 * 1024, 1024 * 1024 + 5]);
    expect(complete.url).toContain(`/files/${declared.body.file_id}/complete`);
    const first = await putPart(parts[0], bytes);
    expect(first.headers.get("ETag")).toBeTruthy();
    await first.body?.cancel();
    const resumed = await captureCall(token, `/files/${declared.body.file_id}/upload`, { method: "POST" });
    expect(resumed.body.uploaded_parts).toEqual([1]);
    for (const part of resumed.body.upload.parts.slice(1)) (await putPart(part, bytes)).body?.cancel();
    const early = await callJson(complete.url, { method: "POST", body: {} });
    expect(early.status).toBe(200);
    const row = await env.DB.prepare("SELECT status, captured_at FROM files WHERE id = ?").bind(declared.body.file_id).first<any>();
    expect(row.status).toBe("uploaded");
    const stored = await env.FILES.head(
      `captures/${(await env.DB.prepare("SELECT session_id FROM files WHERE id = ?").bind(declared.body.file_id).first<any>()).session_id}/${declared.body.file_id}`,
    );
    expect(stored?.size).toBe(bytes.length);
  });

  it("completes from the ETags the phone reports when parts went straight to storage (production), and refuses a wrong one", { timeout: 60_000 }, async () => {
    const token = await videoSession();
    const bytes = new Uint8Array(33 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 65536) bytes.set(crypto.getRandomValues(new Uint8Array(65536)), i);
    const declared = await declareVideo(token, bytes);
    const fileId = declared.body.file_id;
    const row = await env.DB.prepare("SELECT original_key, multipart_upload_id FROM files WHERE id = ?").bind(fileId).first<any>();
    // As R2's S3 API would store them: nothing passes through the Worker, nothing is recorded.
    const upload = env.FILES.resumeMultipartUpload(row.original_key, row.multipart_upload_id);
    const stored = [];
    for (const part of declared.body.upload.parts) stored.push(await upload.uploadPart(part.part_number, bytes.slice(part.offset, part.offset + part.length)));
    const reported = stored.map((part) => ({ part_number: part.partNumber, etag: part.etag }));
    const wrong = await callJson(declared.body.upload.complete.url, {
      method: "POST",
      body: { parts: reported.map((part, i) => (i === 1 ? { ...part, etag: "0".repeat(32) } : part)) },
    });
    expect(wrong.body).toMatchObject({ status: 422, code: "upload_incomplete" });
    const missing = await callJson(declared.body.upload.complete.url, { method: "POST", body: { parts: reported.slice(0, 2) } });
    expect(missing.body.code).toBe("upload_incomplete");
    const done = await callJson(declared.body.upload.complete.url, { method: "POST", body: { parts: reported } });
    expect(done.status).toBe(200);
    expect((await env.DB.prepare("SELECT status FROM files WHERE id = ?").bind(fileId).first<any>()).status).toBe("uploaded");
  });

  // Two 33 MiB uploads: longer than the default 5 s on a busy machine.
  it("accepts the ETags quoted, as S3 answers them to the phone, or unquoted, as the R2 binding gives them", { timeout: 60_000 }, async () => {
    for (const quote of [(etag: string) => `"${etag}"`, (etag: string) => etag]) {
      const token = await videoSession();
      const bytes = new Uint8Array(33 * 1024 * 1024);
      for (let i = 0; i < bytes.length; i += 65536) bytes.set(crypto.getRandomValues(new Uint8Array(65536)), i);
      const declared = await declareVideo(token, bytes);
      const row = await env.DB.prepare("SELECT original_key, multipart_upload_id FROM files WHERE id = ?").bind(declared.body.file_id).first<any>();
      const upload = env.FILES.resumeMultipartUpload(row.original_key, row.multipart_upload_id);
      const reported = [];
      for (const part of declared.body.upload.parts) {
        const stored = await upload.uploadPart(part.part_number, bytes.slice(part.offset, part.offset + part.length));
        reported.push({ part_number: stored.partNumber, etag: quote(stored.etag) });
      }
      const done = await callJson(declared.body.upload.complete.url, { method: "POST", body: { parts: reported } });
      expect({ etag: reported[0]!.etag, status: done.status }).toEqual({ etag: reported[0]!.etag, status: 200 });
    }
  });

  it("refuses an assembled file whose bytes differ from the declared hash", { timeout: 60_000 }, async () => {
    const token = await videoSession();
    const bytes = new Uint8Array(33 * 1024 * 1024);
    const declared = await declareVideo(token, bytes);
    const tampered = bytes.slice();
    tampered[10] = 1;
    for (const part of declared.body.upload.parts) (await putPart(part, tampered)).body?.cancel();
    const done = await callJson(declared.body.upload.complete.url, { method: "POST", body: {} });
    expect(done.body).toMatchObject({ status: 422, code: "upload_checksum_mismatch" });
    expect((await captureCall(token, "/complete", { body: {} })).body.code).toBe("upload_incomplete");
  });
});
