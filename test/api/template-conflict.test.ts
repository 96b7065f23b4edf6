import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { resolveTemplateForSession } from "../../src/capture-templates/resolve.ts";
import { database } from "../../src/db/client.ts";

const template = (extra: Record<string, unknown> = {}) => ({
  name: "Check-in",
  default_locale: "en",
  welcome: { title: "Hello" },
  steps: [{ id: "front", label: "Front", instruction: "Shoot the front" }],
  ...extra,
});
const create = (key: string, extra: Record<string, unknown>) => callJson("/v1/capture-templates", { key, body: template(extra) });

describe("one active template per (mode, stage, category)", () => {
  it("refuses a second active template with the same stage and category with 409 template_conflict", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const first = await create(org.testKey, { stage: "checkin", category: "car" });
    expect(first.status).toBe(201);
    const second = await create(org.testKey, { stage: "checkin", category: "car" });
    expect(second.body).toMatchObject({ status: 409, code: "template_conflict", field: "/stage" });
    expect(second.body.detail).toContain(first.body.id);
    const categoryOnly = await create(org.testKey, { category: "van" });
    expect((await create(org.testKey, { category: "van" })).body).toMatchObject({ code: "template_conflict", field: "/category" });
    // Different pairs, the other mode, and templates with neither stay free.
    for (const [key, extra] of [
      [org.testKey, { stage: "checkin" }],
      [org.testKey, { stage: "checkin", category: "van" }],
      [org.liveKey, { stage: "checkin", category: "car" }],
      [org.testKey, {}],
      [org.testKey, {}],
    ] as const) {
      expect((await create(key, extra)).status).toBe(201);
    }
    // Archiving frees the pair.
    await callJson(`/v1/capture-templates/${categoryOnly.body.id}`, { key: org.testKey, method: "DELETE" });
    expect((await create(org.testKey, { category: "van" })).status).toBe(201);
  });

  it("refuses an update that would take a pair already held, and allows keeping one's own", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const holder = await create(org.testKey, { stage: "checkout" });
    const other = await create(org.testKey, { stage: "return" });
    const taken = await callJson(`/v1/capture-templates/${other.body.id}`, { key: org.testKey, method: "PATCH", body: { stage: "checkout" } });
    expect(taken.body).toMatchObject({ status: 409, code: "template_conflict" });
    expect((await callJson(`/v1/capture-templates/${other.body.id}`, { key: org.testKey })).body.stage).toBe("return");
    const own = await callJson(`/v1/capture-templates/${holder.body.id}`, { key: org.testKey, method: "PATCH", body: { name: "renamed", stage: "checkout" } });
    expect(own.status).toBe(200);
  });

  it("duplicates an active template without its pair (used by id), and an archived one with it when free", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const source = await create(org.testKey, { stage: "checkin", category: "flat" });
    const copy = await callJson(`/v1/capture-templates/${source.body.id}/duplicate`, { key: org.testKey, body: { name: "Copy" } });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: "Copy", stage: null, category: null, archived_at: null });
    await callJson(`/v1/capture-templates/${source.body.id}`, { key: org.testKey, method: "DELETE" });
    const revived = await callJson(`/v1/capture-templates/${source.body.id}/duplicate`, { key: org.testKey, body: { name: "Revived" } });
    expect(revived.body).toMatchObject({ stage: "checkin", category: "flat" });
    const snapshot = await resolveTemplateForSession(database(env.DB), { organizationId: org.id, mode: "test", stage: "checkin", category: "flat" });
    expect(snapshot.id).toBe(revived.body.id);
  });

  it("lets exactly one of several concurrent creations with the same pair through", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => create(org.testKey, { name: `racer ${i}`, stage: "race", category: "car" })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.body.code === "template_conflict")).toHaveLength(5);
  });

  it("lets exactly one of several concurrent updates to the same pair through", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const templates = await Promise.all(Array.from({ length: 5 }, (_, i) => create(org.testKey, { stage: `start-${i}` })));
    const responses = await Promise.all(
      templates.map((created) => callJson(`/v1/capture-templates/${created.body.id}`, { key: org.testKey, method: "PATCH", body: { stage: "same" } })),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.body.code === "template_conflict")).toHaveLength(4);
  });
});
