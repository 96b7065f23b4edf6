import { describe, expect, it } from "vitest";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";

const base64url = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

async function themes(key: string, count: number) {
  for (let i = 0; i < count; i++) {
    const created = await callJson("/v1/capture-themes", { key, body: { name: `Theme ${i}`, primary_color: "#112233", locale: "en" } });
    expect(created.status).toBe(201);
  }
}

const page = (key: string, cursor: string) => callJson(`/v1/capture-themes?limit=1&cursor=${encodeURIComponent(cursor)}`, { key });

// Issue 28: cursors were base64 JSON without integrity, so a forged one was accepted (docs/adr/0030).
describe("pagination cursors", () => {
  it("are signed: a genuine one pages on; a forged, altered or re-signed one is 422 invalid_cursor", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    await themes(org.testKey, 3);
    const first = await callJson("/v1/capture-themes?limit=1", { key: org.testKey });
    const cursor: string = first.body.next_cursor;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const second = await page(org.testKey, cursor);
    expect(second.status).toBe(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);

    const [position, tag] = cursor.split(".") as [string, string];
    const [createdAt, id] = JSON.parse(atob(position.replaceAll("-", "+").replaceAll("_", "/")));
    const forgedPosition = base64url(JSON.stringify(["9999-12-31T00:00:00.000Z", id]));
    const forged = [
      base64url(JSON.stringify([createdAt, id])), // the former unsigned form
      forgedPosition,
      `${forgedPosition}.${tag}`, // another position under a genuine tag
      `${position}.${tag.startsWith("A") ? "B" : "A"}${tag.slice(1)}`, // the tag altered (its first character: the last one's low bits are padding)
      `${position}.`,
      `${position}.${tag}.${tag}`,
      `${position}.!!`,
      "nope",
    ];
    for (const bad of forged) {
      const refused = await page(org.testKey, bad);
      expect(refused.body, bad).toMatchObject({ status: 422, code: "invalid_cursor", field: "/query/cursor" });
    }
  });

  it("belong to the list, organization and mode that issued them", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const other = await createOrganization({ rateLimit: 1000 });
    await themes(org.testKey, 2);
    await themes(other.testKey, 2);
    const cursor: string = (await callJson("/v1/capture-themes?limit=1", { key: org.testKey })).body.next_cursor;
    expect((await page(other.testKey, cursor)).body).toMatchObject({ status: 422, code: "invalid_cursor" });
    expect((await page(org.liveKey, cursor)).body).toMatchObject({ status: 422, code: "invalid_cursor" });
    const elsewhere = await callJson(`/v1/capture-templates?cursor=${encodeURIComponent(cursor)}`, { key: org.testKey });
    expect(elsewhere.body).toMatchObject({ status: 422, code: "invalid_cursor" });
    expect((await page(org.testKey, cursor)).status).toBe(200);
  });

  it("are documented: invalid_cursor on every list route of the OpenAPI document", async () => {
    const document = (await callJson("/openapi.json")).body;
    for (const path of ["/v1/proofs", "/v1/events", "/v1/webhook-deliveries", "/v1/capture-templates", "/v1/capture-themes"]) {
      expect(document.paths[path].get.responses["422"].description, path).toContain("invalid_cursor");
    }
  });
});
