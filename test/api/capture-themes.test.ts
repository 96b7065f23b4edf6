import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

function putLogo(key: string, id: string, body: BodyInit, contentType = "image/png") {
  return call(`/v1/capture-themes/${id}/logo`, { key, method: "PUT", rawBody: body as string, headers: { "Content-Type": contentType } });
}

describe("capture themes", () => {
  it("makes the first theme the default, shares themes between modes, and can switch the default", async () => {
    const org = await createOrganization();
    const first = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#AABBCC", locale: "fr" } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ is_default: true, has_logo: false, primary_color: "#aabbcc", locale: "fr" });
    const second = await callJson("/v1/capture-themes", { key: org.liveKey, body: { name: "B", primary_color: "#000000", locale: "de" } });
    expect(second.body.is_default).toBe(false);
    expect((await callJson(`/v1/capture-themes/${second.body.id}`, { key: org.testKey })).status).toBe(200);
    const switched = await callJson(`/v1/capture-themes/${second.body.id}`, { key: org.testKey, method: "PATCH", body: { is_default: true } });
    expect(switched.body.is_default).toBe(true);
    expect((await callJson(`/v1/capture-themes/${first.body.id}`, { key: org.testKey })).body.is_default).toBe(false);
  });

  it("validates the colour and the language", async () => {
    const org = await createOrganization();
    const colour = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "red", locale: "fr" } });
    expect(colour.body).toMatchObject({ code: "validation_failed", field: "/primary_color" });
    const locale = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "f" } });
    expect(locale.body).toMatchObject({ code: "validation_failed", field: "/locale" });
  });

  it("stores a logo whose type is read from the bytes", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const ok = await putLogo(org.testKey, theme.body.id, PNG as unknown as string, "image/jpeg");
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).has_logo).toBe(true);
    const stored = await env.FILES.get(`themes/${theme.body.id}/logo`);
    expect(stored?.httpMetadata?.contentType).toBe("image/png");
    await stored?.body.cancel();
  });

  it("refuses unknown types, unsafe SVG and logos over 512 KiB", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const cases: [string, string][] = [
      ["plain text", "logo_type_not_allowed"],
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "logo_type_not_allowed"],
      ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>', "logo_type_not_allowed"],
      ['<svg xmlns="http://www.w3.org/2000/svg"><image href="https://tracker.example/x.png"/></svg>', "logo_type_not_allowed"],
      ["x".repeat(512 * 1024 + 1), "logo_too_large"],
    ];
    for (const [body, code] of cases) {
      const response = await putLogo(org.testKey, theme.body.id, body, "image/svg+xml");
      expect(response.status).toBe(422);
      expect(((await response.json()) as any).code).toBe(code);
    }
    const safe = await putLogo(org.testKey, theme.body.id, '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4" fill="#000"/></svg>', "image/svg+xml");
    expect(safe.status).toBe(200);
    await safe.body?.cancel();
  });

  it("refuses to archive a theme an active template uses", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const template = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "T", theme_id: theme.body.id, welcome: { title: "Hi" }, steps: [{ id: "a", label: "A", instruction: "B" }] },
    });
    expect((await callJson(`/v1/capture-themes/${theme.body.id}`, { key: org.testKey, method: "DELETE" })).body.code).toBe("theme_in_use");
    await callJson(`/v1/capture-templates/${template.body.id}`, { key: org.testKey, method: "DELETE" });
    const archived = await callJson(`/v1/capture-themes/${theme.body.id}`, { key: org.testKey, method: "DELETE" });
    expect(archived.status).toBe(200);
    expect(archived.body.archived_at).not.toBeNull();
  });

  it("answers 404 for another organization's theme", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    expect((await callJson(`/v1/capture-themes/${theme.body.id}`, { key: other.testKey })).body.code).toBe("capture_theme_not_found");
  });
});

describe("settings", () => {
  it("normalises allowed origins and refuses paths, credentials and plain http", async () => {
    const org = await createOrganization();
    const ok = await callJson("/v1/settings", { key: org.testKey, method: "PATCH", body: { allowed_return_origins: ["https://Shop.Example:8443", "http://127.0.0.1:3000"] } });
    expect(ok.body.allowed_return_origins).toEqual(["https://shop.example:8443", "http://127.0.0.1:3000"]);
    expect((await callJson("/v1/settings", { key: org.liveKey })).body.allowed_return_origins).toHaveLength(2);
    for (const [origin, index] of [["https://shop.example/path", 1], ["https://user:pw@shop.example", 1], ["http://shop.example", 1], ["nope", 1]] as const) {
      const response = await callJson("/v1/settings", { key: org.testKey, method: "PATCH", body: { allowed_return_origins: ["https://fine.example", origin] } });
      expect(response.body).toMatchObject({ code: "validation_failed", field: `/allowed_return_origins/${index}` });
    }
  });
});
