import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, randomJpeg, tokenOf } from "./support/capture.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";

const put = (part: { url: string; headers: Record<string, string> }, bytes: Uint8Array) =>
  callJson(part.url, { method: "PUT", rawBody: bytes as unknown as string, headers: { ...part.headers, "Content-Length": String(bytes.length) } });

async function photoSession() {
  const org = await createOrganization();
  const created = await createSession(org.testKey, baseSession());
  return tokenOf(created.body.capture_url);
}

const capture = () => ({ method: "camera", device_time: new Date().toISOString() });

describe("upload URLs of files removed from their capture", () => {
  it("refuses a PUT through a removed file's URL, again and again, and stores nothing", async () => {
    const token = await photoSession();
    for (let round = 0; round < 3; round++) {
      const photo = await randomJpeg(2048);
      const declared = await captureCall(token, "/files", {
        body: { step_id: "photos", content_type: "image/jpeg", size: photo.bytes.length, sha256: photo.sha256, capture: capture() },
      });
      expect(declared.status).toBe(201);
      expect((await captureCall(token, `/files/${declared.body.file_id}`, { method: "DELETE" })).status).toBe(204);
      const refused = await put(declared.body.upload.parts[0], photo.bytes);
      expect(refused.body).toMatchObject({ status: 404, code: "capture_file_not_found" });
      const row = await env.DB.prepare("SELECT original_key, status FROM files WHERE id = ?")
        .bind(declared.body.file_id)
        .first<{ original_key: string; status: string }>();
      expect(row?.status).toBe("deleted");
      expect(await env.FILES.head(row!.original_key)).toBeNull();
    }
    expect((await captureCall(token, "/session")).body.files).toEqual([]);
  });

  it("refuses to write an uploaded file again", async () => {
    const token = await photoSession();
    const photo = await randomJpeg(2048);
    const declared = await captureCall(token, "/files", {
      body: { step_id: "photos", content_type: "image/jpeg", size: photo.bytes.length, sha256: photo.sha256, capture: capture() },
    });
    expect((await put(declared.body.upload.parts[0], photo.bytes)).status).toBe(200);
    expect((await put(declared.body.upload.parts[0], photo.bytes)).body).toMatchObject({ status: 409, code: "upload_url_used" });
  });

  it("checks each part's length, aborts a removed file's multipart upload and refuses its part URLs", async () => {
    const org = await createOrganization();
    const template = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: {
        name: "Video",
        welcome: { title: "Film" },
        steps: [{ id: "walkaround", label: "Walk", instruction: "Walk around", kind: "video", max_count: 2 }],
      },
    });
    const token = tokenOf((await createSession(org.testKey, { ...baseSession(), template_id: template.body.id })).body.capture_url);
    const size = 40 * 1024 * 1024;
    const declared = await captureCall(token, "/files", {
      body: {
        step_id: "walkaround",
        content_type: "video/mp4",
        size,
        sha256: await sha256Hex(new Uint8Array(8)),
        capture: { ...capture(), duration_ms: 5000 },
      },
    });
    expect(declared.status).toBe(201);
    const [first, second] = declared.body.upload.parts;
    const row = await env.DB.prepare("SELECT original_key, multipart_upload_id FROM files WHERE id = ?")
      .bind(declared.body.file_id)
      .first<{ original_key: string; multipart_upload_id: string }>();
    const stored = await call(first.url, { method: "PUT", rawBody: new Uint8Array(first.length) as unknown as string, headers: first.headers });
    await stored.arrayBuffer();
    expect(stored.status).toBe(200);

    // A part URL writes its exact length and no other.
    const longer = await callJson(second.url, { method: "PUT", rawBody: new Uint8Array(second.length + 1) as unknown as string, headers: second.headers });
    expect(longer.body).toMatchObject({ status: 422, code: "upload_size_mismatch" });

    expect((await captureCall(token, `/files/${declared.body.file_id}`, { method: "DELETE" })).status).toBe(204);
    // Aborted: storage itself no longer takes parts for that upload, whoever holds a URL.
    const upload = env.FILES.resumeMultipartUpload(row!.original_key, row!.multipart_upload_id);
    await expect(upload.uploadPart(3, new Uint8Array(10))).rejects.toThrow();
    const refused = await callJson(second.url, { method: "PUT", rawBody: new Uint8Array(second.length) as unknown as string, headers: second.headers });
    expect(refused.body).toMatchObject({ status: 404, code: "capture_file_not_found" });
  });
});
