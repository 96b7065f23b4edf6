import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import migration0018 from "../../migrations/0018_settings_per_mode.sql?raw";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";

const patch = (key: string, origins: unknown) => callJson("/v1/settings", { key, method: "PATCH", body: { allowed_return_origins: origins } });

describe("settings", () => {
  // Issue 28: the settings were one list for both modes, so a test key could break live captures (docs/adr/0029).
  it("starts empty and belongs to the key's mode: a test key never changes what live uses", async () => {
    const org = await createOrganization({ balance: 5 });
    expect((await callJson("/v1/settings", { key: org.liveKey })).body).toEqual({ allowed_return_origins: [] });
    await patch(org.liveKey, ["https://shop.example"]);
    expect((await callJson("/v1/settings", { key: org.testKey })).body).toEqual({ allowed_return_origins: [] });
    expect((await patch(org.testKey, ["https://staging.shop.example"])).body).toEqual({ allowed_return_origins: ["https://staging.shop.example"] });
    expect((await callJson("/v1/settings", { key: org.liveKey })).body).toEqual({ allowed_return_origins: ["https://shop.example"] });
    const live = await createSession(org.liveKey, { ...baseSession(), return_url: "https://shop.example/back" });
    expect(live.status).toBe(201);
    const liveToStaging = await createSession(org.liveKey, { ...baseSession(), return_url: "https://staging.shop.example/back" });
    expect(liveToStaging.body).toMatchObject({ status: 422, code: "return_url_not_allowed" });
    expect((await createSession(org.testKey, { ...baseSession(), return_url: "https://staging.shop.example/back" })).status).toBe(201);
    const testToLive = await createSession(org.testKey, { ...baseSession(), return_url: "https://shop.example/back" });
    expect(testToLive.body).toMatchObject({ status: 422, code: "return_url_not_allowed" });
  });

  it("migration 0018 gives both modes the list the organization shared before", async () => {
    const org = await createOrganization();
    const untouched = await createOrganization();
    await env.DB.prepare("UPDATE organizations SET allowed_return_origins = ? WHERE id = ?").bind('["https://shop.example"]', org.id).run();
    const copy = migration0018.slice(migration0018.indexOf("INSERT INTO mode_settings"));
    await env.DB.prepare(copy).run();
    for (const key of [org.testKey, org.liveKey]) {
      expect((await callJson("/v1/settings", { key })).body).toEqual({ allowed_return_origins: ["https://shop.example"] });
    }
    expect((await callJson("/v1/settings", { key: untouched.liveKey })).body).toEqual({ allowed_return_origins: [] });
    await patch(org.testKey, []);
    expect((await callJson("/v1/settings", { key: org.liveKey })).body).toEqual({ allowed_return_origins: ["https://shop.example"] });
  });

  it("normalises origins: lowercase, punycode, default port dropped, trailing slash tolerated, duplicates removed", async () => {
    const org = await createOrganization();
    const response = await patch(org.testKey, [
      "https://Shop.Example:8443",
      "https://shop.example:443",
      "HTTPS://SHOP.EXAMPLE/",
      "https://bücher.example",
      "http://127.0.0.1:3000",
      "http://localhost:5173",
      "http://[::1]:8080",
    ]);
    expect(response.status).toBe(200);
    expect(response.body.allowed_return_origins).toEqual([
      "https://shop.example:8443",
      "https://shop.example",
      "https://xn--bcher-kva.example",
      "http://127.0.0.1:3000",
      "http://localhost:5173",
      "http://[::1]:8080",
    ]);
  });

  it("refuses anything but an origin, pointing at the bad item", async () => {
    const org = await createOrganization();
    const bad = [
      "https://shop.example/path",
      "https://shop.example/?",
      "https://shop.example?x=1",
      "https://shop.example#top",
      "https://user:pw@shop.example",
      "https://@shop.example",
      "http://shop.example",
      "ftp://shop.example",
      "https:shop.example",
      "shop.example",
      "nope",
      "",
      "https://.example.com",
      "https://shop..example",
      "https://*.example.com",
      "https://*",
      "https://shop.*.example:8443",
    ];
    for (const origin of bad) {
      const response = await patch(org.testKey, ["https://fine.example", origin]);
      expect(response.body, origin).toMatchObject({ status: 422, code: "validation_failed", field: "/allowed_return_origins/1" });
    }
    expect((await callJson("/v1/settings", { key: org.testKey })).body.allowed_return_origins).toEqual([]);
  });

  it("holds at most 20 origins, and the list is replaced as a whole", async () => {
    const org = await createOrganization();
    const twenty = Array.from({ length: 20 }, (_, i) => `https://s${i}.example`);
    expect((await patch(org.testKey, twenty)).body.allowed_return_origins).toHaveLength(20);
    expect((await patch(org.testKey, [...twenty, "https://s20.example"])).body).toMatchObject({ status: 422, field: "/allowed_return_origins" });
    expect((await patch(org.testKey, ["https://only.example"])).body.allowed_return_origins).toEqual(["https://only.example"]);
    expect((await patch(org.testKey, [])).body.allowed_return_origins).toEqual([]);
    expect((await callJson("/v1/settings", { key: org.testKey, method: "PATCH", body: {} })).body).toMatchObject({
      code: "validation_failed",
      field: "/allowed_return_origins",
    });
    expect((await callJson("/v1/settings", { key: org.testKey, method: "PATCH", body: { allowed_return_origins: [], other: 1 } })).body).toMatchObject({
      code: "validation_failed",
      field: "/other",
    });
  });

  it("needs manage_settings", async () => {
    const org = await createOrganization();
    const key = await createKey(org.id, { mode: "test", rights: ["create_proof", "read_proof", "manage_templates"] });
    expect((await callJson("/v1/settings", { key: key.key })).body).toMatchObject({ status: 403, code: "insufficient_scope" });
    expect((await patch(key.key, [])).body).toMatchObject({ status: 403, code: "insufficient_scope" });
  });
});
