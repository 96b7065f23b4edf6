import { describe, expect, it } from "vitest";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";

const patch = (key: string, origins: unknown) => callJson("/v1/settings", { key, method: "PATCH", body: { allowed_return_origins: origins } });

describe("settings", () => {
  it("starts empty and is shared by both modes", async () => {
    const org = await createOrganization();
    expect((await callJson("/v1/settings", { key: org.liveKey })).body).toEqual({ allowed_return_origins: [] });
    await patch(org.testKey, ["https://shop.example"]);
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
