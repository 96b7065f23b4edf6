import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, declarePhoto, randomJpeg, tokenOf, uploadPhoto } from "./support/capture.ts";

async function openSession(extra: Record<string, unknown> = {}, key?: string) {
  const org = await createOrganization({ balance: 10 });
  const created = await createSession(key ?? org.testKey, { ...baseSession(), ...extra });
  return { org, session: created.body, token: tokenOf(created.body.capture_url) };
}

describe("capture page routes", () => {
  it("live only on the capture host", async () => {
    const { token } = await openSession();
    expect((await callJson(`/c/${token}/session`)).status).toBe(404);
    expect((await captureCall(token, "/session")).status).toBe(200);
  });

  it("serves the session with texts resolved to its language", async () => {
    const { token, session } = await openSession({ locale: "fr-CA" });
    const { status, body, headers } = await captureCall(token, "/session");
    expect(status).toBe(200);
    expect(headers.get("Cache-Control")).toBe("no-store");
    expect(body).toMatchObject({ session_id: session.id, locale: "fr-CA", mode: "test", status: "open", before_shots: null, files: [], ask_location: false });
    expect(body.welcome.title).toBe("Prenez les photos");
    expect(body.steps).toEqual([expect.objectContaining({ id: "photos", label: "Photos", required: true, kind: "photo", min_count: 1, max_count: 20 })]);
    expect(body.theme.primary_color).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("answers 404 for an unknown link and 410 for an expired one, with the locale", async () => {
    expect((await captureCall("x".repeat(43), "/session")).body.code).toBe("capture_link_not_found");
    const { token, session } = await openSession({ locale: "de" });
    await env.DB.prepare("UPDATE capture_sessions SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), session.id)
      .run();
    const expired = await captureCall(token, "/session");
    expect(expired.body).toMatchObject({ status: 410, code: "capture_link_expired", locale: "de" });
  });

  it("serves the HTML page with a strict CSP, and the link's state as status", async () => {
    const { token } = await openSession();
    const page = await call(`${CAPTURE}/c/${token}`);
    await page.body?.cancel();
    expect(page.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    const unknown = await call(`${CAPTURE}/c/${"y".repeat(43)}`);
    await unknown.body?.cancel();
    expect(unknown.status).toBe(404);
  });
});

describe("uploads straight to storage", () => {
  it("declares a shot, uploads it through its signed URL and records when storage saw it", async () => {
    const { token, session } = await openSession();
    const { fileId } = await uploadPhoto(token);
    const row = await env.DB.prepare("SELECT * FROM files WHERE id = ?").bind(fileId).first<any>();
    expect(row).toMatchObject({ status: "uploaded", session_id: session.id, kind: "photo" });
    expect(row.captured_at).not.toBeNull();
    expect(JSON.parse(row.capture_context)).toMatchObject({ method: "camera", width: 4032 });
    expect(typeof JSON.parse(row.capture_context).clock_offset_ms).toBe("number");
    const view = await captureCall(token, "/session");
    expect(view.body.files).toEqual([expect.objectContaining({ file_id: fileId, status: "uploaded" })]);
  });

  it("refuses a wrong step, a wrong type, a file too large, and too many shots", async () => {
    const { token } = await openSession();
    const photo = await randomJpeg();
    const declare = (body: Record<string, unknown>) =>
      captureCall(token, "/files", {
        body: {
          step_id: "photos",
          content_type: "image/jpeg",
          size: 10,
          sha256: photo.sha256,
          capture: { method: "file", device_time: new Date().toISOString() },
          ...body,
        },
      });
    expect((await declare({ step_id: "nope" })).body.code).toBe("step_not_found");
    expect((await declare({ content_type: "video/mp4" })).body.code).toBe("content_type_not_allowed");
    expect((await declare({ content_type: "application/pdf" })).body.code).toBe("content_type_not_allowed");
    expect((await declare({ size: 25 * 1024 * 1024 + 1 })).body.code).toBe("file_too_large");
    expect((await declare({ sha256: "abc" })).body).toMatchObject({ code: "validation_failed", field: "/sha256" });
    for (let i = 0; i < 20; i++) expect((await declare({})).status).toBe(201);
    expect((await declare({})).body.code).toBe("too_many_files");
  });

  it("refuses tampered uploads: other bytes, another size, a forged or expired URL, a replay", async () => {
    const { token } = await openSession();
    const { part, ...photo } = await declarePhoto(token);
    const put = (url: string, bytes: Uint8Array) =>
      callJson(url, { method: "PUT", rawBody: bytes as unknown as string, headers: { "Content-Type": "image/jpeg" } });
    const other = await randomJpeg();
    expect((await put(part.url, other.bytes)).body.code).toBe("upload_checksum_mismatch");
    expect((await put(part.url, photo.bytes.slice(1))).body.code).toBe("upload_size_mismatch");
    const forged = part.url.replace(/.$/, (c: string) => (c === "0" ? "1" : "0"));
    expect((await put(forged, photo.bytes)).body.code).toBe("upload_url_invalid");
    expect((await put(part.url.replace("/u/", "/u/x"), photo.bytes)).body.code).toBe("upload_url_invalid");
    expect((await put(part.url, photo.bytes)).status).toBe(200);
    expect((await put(part.url, photo.bytes)).body.code).toBe("upload_url_used");
    const { verifyLocalGrant } = await import("../../src/storage/objects/signed-urls.ts");
    const tokenPart = part.url.split("/u/")[1];
    expect(await verifyLocalGrant(env, tokenPart, "PUT", Math.floor(Date.now() / 1000) + 3600)).toEqual({ ok: false, reason: "expired" });
    expect(await verifyLocalGrant(env, tokenPart, "GET")).toEqual({ ok: false, reason: "invalid" });
  });

  it("deletes a shot and re-issues upload URLs", async () => {
    const { token } = await openSession();
    const { fileId } = await uploadPhoto(token);
    const reissued = await captureCall(token, `/files/${fileId}/upload`, { method: "POST" });
    expect(reissued.body).toMatchObject({ file_id: fileId, uploaded_parts: [1] });
    const deleted = await call(`${CAPTURE}/c/${token}/files/${fileId}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await captureCall(token, "/session")).body.files).toEqual([]);
  });
});
