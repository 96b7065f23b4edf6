import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { giveWriteShard, shardBindings, statementsPreparedOn } from "./support/write-shards.ts";
import { shardDatabase } from "../../src/db/shards.ts";
import { markTemplateUsed, updateEditableTemplate } from "../../src/storage/capture-templates.ts";

/**
 * Templates of an organization writing its sessions in another shard (docs/adr/0070, forger session 9's W3):
 * templates stay home, so the home shard records a use made elsewhere (`capture_templates.used_at`, migration
 * 0030) before the session is written, and `in_use` and the live freeze read it. An organization on one shard
 * reads its own sessions as before and writes nothing more. The organizations live on 00 and are given 01 as
 * the operator's `add-write-shard` does: the stub row first, then the list's row home.
 */
const home = shardBindings;

/** An organization on 00 writing to 01, with keys made after the switch (a cached caller may predate it). */
async function organizationWritingTo01(balance: number) {
  const org = await createOrganization({ balance });
  await giveWriteShard(org.id, "01");
  const key = async (mode: "test" | "live") => (await createKey(org.id, { mode, rate_limit_per_minute: 1000 })).key;
  return { id: org.id, testKey: await key("test"), liveKey: await key("live") };
}

async function createTemplate(key: string) {
  const created = await callJson("/v1/capture-templates", {
    key,
    body: {
      name: `Rooms ${crypto.randomUUID()}`,
      default_locale: "en",
      welcome: { title: "Hello", body: "…" },
      steps: [{ id: "room", label: "Room", instruction: "Wide shot", kind: "photo", min_count: 1, max_count: 3 }],
      completion: { title: "Thanks", body: null },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const usedAt = async (templateId: string) =>
  (await home.DB.prepare("SELECT used_at FROM capture_templates WHERE id = ?").bind(templateId).first<{ used_at: string | null }>())?.used_at;

const rename = (key: string, templateId: string) => callJson(`/v1/capture-templates/${templateId}`, { key, method: "PATCH", body: { name: "Edited" } });

describe("a template used by a session written in a write shard", () => {
  it("W3: a live template is in use and frozen once a session in the write shard uses it", async () => {
    const org = await organizationWritingTo01(2);
    const templateId = await createTemplate(org.liveKey);
    const session = await createSession(org.liveKey, { ...baseSession(), template_id: templateId });
    expect(session.status).toBe(201);
    expect(session.body.id).toMatch(/^cps_01/);

    expect((await callJson(`/v1/capture-templates/${templateId}`, { key: org.liveKey })).body.in_use).toBe(true);
    const listed = await callJson("/v1/capture-templates?limit=100", { key: org.liveKey });
    expect(listed.body.data.find((row: { id: string }) => row.id === templateId).in_use).toBe(true);
    const edited = await rename(org.liveKey, templateId);
    expect(edited.body).toMatchObject({ status: 409, code: "template_frozen" });
  });

  it("the edit's own condition refuses it too, for an edit that read the template before the use was recorded", async () => {
    const org = await organizationWritingTo01(0);
    const templateId = await createTemplate(org.liveKey);
    const db = shardDatabase(env, "00");
    await markTemplateUsed(db, org.id, templateId, new Date().toISOString());
    expect(await updateEditableTemplate(db, templateId, { name: "Edited" })).toBe(false);
  });

  it("a test template is in use too, and stays editable as test templates do", async () => {
    const org = await organizationWritingTo01(0);
    const templateId = await createTemplate(org.testKey);
    const session = await createSession(org.testKey, { ...baseSession(), template_id: templateId });
    expect(session.body.id).toMatch(/^cps_01/);
    expect((await callJson(`/v1/capture-templates/${templateId}`, { key: org.testKey })).body.in_use).toBe(true);
    expect((await rename(org.testKey, templateId)).status).toBe(200);
  });

  it("the use is recorded before the session is written: a creation refused afterwards leaves it frozen early", async () => {
    const org = await organizationWritingTo01(0);
    const templateId = await createTemplate(org.liveKey);
    const refused = await createSession(org.liveKey, { ...baseSession(), template_id: templateId });
    expect(refused.body.code).toBe("insufficient_balance");
    expect(await usedAt(templateId)).not.toBeNull();
    expect((await rename(org.liveKey, templateId)).body.code).toBe("template_frozen");
  });

  it("a copy of a template used in the write shard is unused and editable", async () => {
    const org = await organizationWritingTo01(1);
    const templateId = await createTemplate(org.liveKey);
    expect((await createSession(org.liveKey, { ...baseSession(), template_id: templateId })).status).toBe(201);
    const copy = await callJson(`/v1/capture-templates/${templateId}/duplicate`, { key: org.liveKey, body: { name: "Copy" } });
    expect(copy.status).toBe(201);
    expect(copy.body.in_use).toBe(false);
    expect(await usedAt(copy.body.id)).toBeNull();
    expect((await rename(org.liveKey, copy.body.id)).status).toBe(200);
  });

  it("another organization's template is never marked", async () => {
    const owner = await createOrganization();
    const templateId = await createTemplate(owner.liveKey);
    const other = await organizationWritingTo01(1);
    await markTemplateUsed(shardDatabase(env, "00"), other.id, templateId, new Date().toISOString());
    const named = await createSession(other.liveKey, { ...baseSession(), template_id: templateId });
    expect(named.body.code).toBe("template_not_found");
    expect(await usedAt(templateId)).toBeNull();
  });
});

describe("an organization on one shard", () => {
  it("reads its template's use off its sessions as before, and a creation writes nothing more home", async () => {
    const org = await createOrganization({ balance: 1 });
    const templateId = await createTemplate(org.liveKey);
    const { result: session, statements } = await statementsPreparedOn("DB", () => createSession(org.liveKey, { ...baseSession(), template_id: templateId }));
    expect(session.body.id).toMatch(/^cps_00/);
    expect(statements.filter((query) => /update\s+"?capture_templates/i.test(query))).toEqual([]);
    expect(await usedAt(templateId)).toBeNull();
    expect((await callJson(`/v1/capture-templates/${templateId}`, { key: org.liveKey })).body.in_use).toBe(true);
    expect((await rename(org.liveKey, templateId)).body.code).toBe("template_frozen");
  });
});
