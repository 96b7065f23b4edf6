import { describe, expect, it } from "vitest";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, declarePhoto, tokenOf } from "./support/capture.ts";

describe("what the capture page is given", () => {
  it("the template's default language, so the page's own buttons can fall back to it before English", async () => {
    const org = await createOrganization({ balance: 10 });
    const template = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: {
        name: "Übergabe",
        default_locale: "de",
        welcome: { title: "Fotos aufnehmen" },
        steps: [{ id: "front", label: "Vorne", instruction: "Die Vorderseite" }],
      },
    });
    expect(template.status).toBe(201);
    const created = await createSession(org.testKey, { ...baseSession(), template_id: template.body.id, locale: "ja" });
    const { status, body } = await captureCall(tokenOf(created.body.capture_url), "/session");
    expect(status).toBe(200);
    expect(body).toMatchObject({ locale: "ja", default_locale: "de", welcome: { title: "Fotos aufnehmen" } });
  });

  it("the organisation's name, shown on the welcome screen", async () => {
    const org = await createOrganization({ balance: 10 });
    const created = await createSession(org.testKey, baseSession());
    const { body } = await captureCall(tokenOf(created.body.capture_url), "/session");
    expect(typeof body.organization_name).toBe("string");
    expect(body.organization_name.length).toBeGreaterThan(0);
  });

  it("the storage route answers a PUT with a content type (Firefox reads an untyped empty answer as broken XML)", async () => {
    const org = await createOrganization({ balance: 10 });
    const created = await createSession(org.testKey, baseSession());
    const token = tokenOf(created.body.capture_url);
    const { part, ...photo } = await declarePhoto(token);
    const put = await call(part.url, {
      method: "PUT",
      rawBody: photo.bytes as unknown as string,
      headers: { ...part.headers, "Content-Length": String(photo.bytes.length) },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(await put.text()).toBe("");
  });
});
