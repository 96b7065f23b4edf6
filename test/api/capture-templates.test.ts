import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";

const template = (extra: Record<string, unknown> = {}) => ({
  name: "Flat inventory",
  default_locale: "fr",
  welcome: { title: { fr: "Bonjour", en: "Hello" }, body: "…" },
  steps: [
    { id: "kitchen", label: { fr: "Cuisine", en: "Kitchen" }, instruction: "Vue d'ensemble", kind: "photo", min_count: 2, max_count: 5 },
    { id: "walkthrough", label: "Visite", instruction: "Filmez", kind: "video", required: false, min_count: 0, max_count: 1 },
  ],
  completion: { title: "Merci", body: null },
  ...extra,
});

describe("capture templates", () => {
  it("creates a template in the key's mode with defaults filled in", async () => {
    const org = await createOrganization();
    const { status, body } = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ steps: [{ id: "a", label: "A", instruction: "B" }] }) });
    expect(status).toBe(201);
    expect(body).toMatchObject({ mode: "test", in_use: false, archived_at: null, stage: null, category: null, theme_id: null, ask_location: false });
    expect(body.id).toMatch(/^tpl_/);
    expect(body.steps[0]).toEqual({ id: "a", label: "A", instruction: "B", required: true, kind: "photo", min_count: 1, max_count: 20 });
  });

  it("requires the default language in every language map", async () => {
    const org = await createOrganization();
    const response = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ welcome: { title: { en: "Hello" } } }) });
    expect(response.body).toMatchObject({ status: 422, code: "validation_failed", field: "/welcome/title" });
  });

  it("refuses more than 20 languages", async () => {
    const org = await createOrganization();
    const title: Record<string, string> = { fr: "Bonjour" };
    for (let i = 0; i < 20; i++) title[`x${String.fromCharCode(97 + i)}`] = "hi";
    const response = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ welcome: { title } }) });
    expect(response.body).toMatchObject({ status: 422, code: "too_many_languages" });
  });

  it("refuses duplicate step ids, min above max, and a required step with no shot", async () => {
    const org = await createOrganization();
    const step = { id: "a", label: "A", instruction: "B" };
    const duplicate = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ steps: [step, step] }) });
    expect(duplicate.body).toMatchObject({ code: "validation_failed", field: "/steps/1/id" });
    const inverted = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ steps: [{ ...step, min_count: 5, max_count: 2 }] }) });
    expect(inverted.body).toMatchObject({ code: "validation_failed", field: "/steps/0/min_count" });
    const empty = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ steps: [{ ...step, min_count: 0 }] }) });
    expect(empty.body).toMatchObject({ code: "validation_failed", field: "/steps/0/min_count" });
  });

  it("keeps templates to their mode", async () => {
    const org = await createOrganization();
    const live = await callJson("/v1/capture-templates", { key: org.liveKey, body: template() });
    expect((await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.testKey })).body.code).toBe("capture_template_not_found");
    const list = await callJson("/v1/capture-templates", { key: org.testKey });
    expect(list.body.data.map((t: any) => t.id)).not.toContain(live.body.id);
  });

  it("freezes a live template once a session used it, while test templates stay editable", async () => {
    const org = await createOrganization({ balance: 5 });
    const live = await callJson("/v1/capture-templates", { key: org.liveKey, body: template() });
    const test = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    expect((await createSession(org.liveKey, { ...baseSession(), template_id: live.body.id })).status).toBe(201);
    expect((await createSession(org.testKey, { ...baseSession(), template_id: test.body.id })).status).toBe(201);
    const frozen = await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey, method: "PATCH", body: { name: "Renamed" } });
    expect(frozen.body).toMatchObject({ status: 409, code: "template_frozen" });
    expect((await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey })).body.in_use).toBe(true);
    const edited = await callJson(`/v1/capture-templates/${test.body.id}`, { key: org.testKey, method: "PATCH", body: { name: "Renamed" } });
    expect(edited.status).toBe(200);
    expect(edited.body.name).toBe("Renamed");
    const copy = await callJson(`/v1/capture-templates/${live.body.id}/duplicate`, { key: org.liveKey, body: { name: "Copy" } });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: "Copy", in_use: false, archived_at: null, stage: null, category: null });
    const editedCopy = await callJson(`/v1/capture-templates/${copy.body.id}`, { key: org.liveKey, method: "PATCH", body: { steps: [{ id: "x", label: "X", instruction: "Y" }] } });
    expect(editedCopy.status).toBe(200);
  });

  it("archives on delete: no new session, and no edit", async () => {
    const org = await createOrganization();
    const created = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    const archived = await callJson(`/v1/capture-templates/${created.body.id}`, { key: org.testKey, method: "DELETE" });
    expect(archived.status).toBe(200);
    expect(archived.body.archived_at).not.toBeNull();
    const session = await createSession(org.testKey, { ...baseSession(), template_id: created.body.id });
    expect(session.body.code).toBe("template_not_found");
    const edit = await callJson(`/v1/capture-templates/${created.body.id}`, { key: org.testKey, method: "PATCH", body: { name: "x" } });
    expect(edit.body.code).toBe("template_archived");
  });

  it("accepts a theme of the organization only", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Brand", primary_color: "#aabbcc", locale: "en" } });
    const ok = await callJson("/v1/capture-templates", { key: org.liveKey, body: template({ theme_id: theme.body.id }) });
    expect(ok.body.theme_id).toBe(theme.body.id);
    const bad = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ theme_id: "thm_nope" }) });
    expect(bad.body).toMatchObject({ code: "validation_failed", field: "/theme_id" });
  });

  it("pages through templates newest first without duplicates or gaps, even while new ones arrive", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await callJson("/v1/capture-templates", { key: org.testKey, body: template({ name: `t${i}` }) })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await callJson(`/v1/capture-templates?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { key: org.testKey });
      seen.push(...page.body.data.map((t: any) => t.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
      await callJson("/v1/capture-templates", { key: org.testKey, body: template({ name: "late" }) });
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
    const bad = await callJson("/v1/capture-templates?cursor=garbage", { key: org.testKey });
    expect(bad.body).toMatchObject({ status: 422, code: "validation_failed", field: "cursor" });
    const tooBig = await callJson("/v1/capture-templates?limit=101", { key: org.testKey });
    expect(tooBig.body).toMatchObject({ status: 422, field: "limit" });
  });

  it("needs manage_templates", async () => {
    const org = await createOrganization();
    const key = await createKey(org.id, { mode: "test", rights: ["create_proof"] });
    expect((await callJson("/v1/capture-templates", { key: key.key })).body.code).toBe("insufficient_scope");
  });

  it("lists as in use only templates a session was created from", async () => {
    const org = await createOrganization();
    const created = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    await createSession(org.testKey, { ...baseSession(), template_id: created.body.id });
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM capture_sessions WHERE template_id = ?").bind(created.body.id).first<any>();
    expect(rows.n).toBe(1);
    expect((await callJson(`/v1/capture-templates/${created.body.id}`, { key: org.testKey })).body.in_use).toBe(true);
  });
});
