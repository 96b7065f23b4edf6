import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { database } from "../../src/db/client.ts";
import { resolveTemplateForSession } from "../../src/capture-templates/resolve.ts";
import { captureTemplates } from "../../src/db/schema/index.ts";
import { insertTemplateWithActiveTheme } from "../../src/storage/capture-templates.ts";
import { eq } from "drizzle-orm";

const findTemplateRow = async (id: string) => (await database(env.DB).select().from(captureTemplates).where(eq(captureTemplates.id, id)).get())!;
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
    const { status, body } = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: template({ steps: [{ id: "a", label: "A", instruction: "B" }] }),
    });
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
    const editedCopy = await callJson(`/v1/capture-templates/${copy.body.id}`, {
      key: org.liveKey,
      method: "PATCH",
      body: { steps: [{ id: "x", label: "X", instruction: "Y" }] },
    });
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
    // Cursors are signed since issue 28 (docs/adr/0030): one this API did not issue is invalid_cursor.
    expect(bad.body).toMatchObject({ status: 422, code: "invalid_cursor", field: "/query/cursor" });
    const tooBig = await callJson("/v1/capture-templates?limit=101", { key: org.testKey });
    expect(tooBig.body).toMatchObject({ status: 422, field: "/query/limit" });
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

  it("fills a missing completion with the service's thanks, including the template's own default language", async () => {
    const org = await createOrganization();
    const step = { id: "a", label: "A", instruction: "B" };
    const italian = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "It", default_locale: "it", welcome: { title: "Ciao" }, steps: [step] },
    });
    expect(italian.status).toBe(201);
    expect(italian.body.completion.title).toMatchObject({ en: "Thank you", fr: "Merci", it: "Grazie" });
    expect(italian.body.welcome.body).toBeNull();
    const canadian = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "Ca", default_locale: "fr-CA", welcome: { title: "Allô" }, steps: [step] },
    });
    expect(canadian.body.completion.title["fr-CA"]).toBe("Merci");
    const edited = await callJson(`/v1/capture-templates/${italian.body.id}`, { key: org.testKey, method: "PATCH", body: { name: "Still valid" } });
    expect(edited.status).toBe(200);
  });

  it("leaves the service's thanks out of the 20 languages, and keys them for a new default language", async () => {
    const org = await createOrganization();
    const title: Record<string, string> = { en: "Hello" };
    for (let i = 0; i < 19; i++) title[`x${String.fromCharCode(97 + i)}`] = "hi";
    const twenty = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "Twenty", default_locale: "en", welcome: { title }, steps: [{ id: "a", label: "A", instruction: "B" }] },
    });
    expect(twenty.status).toBe(201);
    expect(twenty.body.completion.title).toMatchObject({ en: "Thank you", ar: "شكرًا لك", "zh-Hans": "谢谢" });
    const renamed = await callJson(`/v1/capture-templates/${twenty.body.id}`, { key: org.testKey, method: "PATCH", body: { name: "Still twenty" } });
    expect(renamed.status).toBe(200);

    const plain = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: { name: "Plain", default_locale: "en", welcome: { title: "Bonjour" }, steps: [{ id: "a", label: "A", instruction: "B" }] },
    });
    const canadian = await callJson(`/v1/capture-templates/${plain.body.id}`, { key: org.testKey, method: "PATCH", body: { default_locale: "fr-CA" } });
    expect(canadian.status).toBe(200);
    expect(canadian.body.completion.title["fr-CA"]).toBe("Merci");
    // Texts of the integrator's own are kept as given, and still counted.
    const own = await callJson(`/v1/capture-templates/${plain.body.id}`, {
      key: org.testKey,
      method: "PATCH",
      body: { completion: { title: { ...title, "fr-CA": "Merci" }, body: null } },
    });
    expect(own.body).toMatchObject({ status: 422, code: "too_many_languages", field: "/completion/title/xs" });
  });

  it("refuses a language map naming a language twice, and bad tags, with the field's pointer", async () => {
    const org = await createOrganization();
    const twice = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ welcome: { title: { fr: "Bonjour", FR: "Salut" } } }) });
    expect(twice.body).toMatchObject({ status: 422, code: "validation_failed", field: "/welcome/title/FR" });
    const badTag = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ welcome: { title: { fr: "Bonjour", "not a tag": "x" } } }) });
    expect(badTag.body).toMatchObject({ status: 422, code: "validation_failed" });
    expect(badTag.body.field).toMatch(/^\/welcome\/title/);
    const badDefault = await callJson("/v1/capture-templates", { key: org.testKey, body: template({ default_locale: "f" }) });
    expect(badDefault.body).toMatchObject({ code: "validation_failed", field: "/default_locale" });
    const stepLabel = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: template({ steps: [{ id: "a", label: { en: "only English" }, instruction: "x" }] }),
    });
    expect(stepLabel.body).toMatchObject({ code: "validation_failed", field: "/steps/0/label" });
  });

  it("counts languages over the whole template: 20 pass, 21 do not", async () => {
    const org = await createOrganization();
    const tags = Array.from({ length: 21 }, (_, i) => `l${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`.slice(0, 3));
    const spread = (count: number) => ({
      default_locale: "en",
      welcome: { title: Object.fromEntries([["en", "Hi"], ...tags.slice(0, Math.ceil((count - 1) / 2)).map((tag) => [tag, "x"])]) },
      completion: { title: Object.fromEntries([["en", "Bye"], ...tags.slice(Math.ceil((count - 1) / 2), count - 1).map((tag) => [tag, "x"])]), body: null },
      steps: [{ id: "a", label: "A", instruction: "B" }],
    });
    expect((await callJson("/v1/capture-templates", { key: org.testKey, body: { name: "20", ...spread(20) } })).status).toBe(201);
    const over = await callJson("/v1/capture-templates", { key: org.testKey, body: { name: "21", ...spread(21) } });
    expect(over.body).toMatchObject({ status: 422, code: "too_many_languages" });
  });

  it("validates every field's pattern and bounds", async () => {
    const org = await createOrganization();
    const step = { id: "a", label: "A", instruction: "B" };
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "/name"],
      [{ name: "n".repeat(101) }, "/name"],
      [{ steps: [] }, "/steps"],
      [{ steps: Array.from({ length: 21 }, (_, i) => ({ ...step, id: `s${i}` })) }, "/steps"],
      [{ steps: [{ ...step, id: "Has Space" }] }, "/steps/0/id"],
      [{ steps: [{ ...step, kind: "audio" }] }, "/steps/0/kind"],
      [{ steps: [{ ...step, max_count: 51 }] }, "/steps/0/max_count"],
      [{ steps: [{ ...step, required: false, min_count: 0, max_count: 0 }] }, "/steps/0/max_count"],
      [{ stage: "Check In" }, "/stage"],
      [{ category: "c".repeat(65) }, "/category"],
      [{ ask_location: "yes" }, "/ask_location"],
      [{ colour: "red" }, "/colour"],
    ];
    for (const [extra, field] of cases) {
      const response = await callJson("/v1/capture-templates", { key: org.testKey, body: template(extra) });
      expect(response.body, JSON.stringify(extra).slice(0, 80)).toMatchObject({ status: 422, code: "validation_failed", field });
    }
    const optional = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: template({ steps: [{ ...step, required: false, min_count: 0, max_count: 3 }], ask_location: true }),
    });
    expect(optional.status).toBe(201);
    expect(optional.body.ask_location).toBe(true);
  });

  it("gives 404 capture_template_not_found for another organization's template on every route by id", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const created = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    const path = `/v1/capture-templates/${created.body.id}`;
    for (const [suffix, method, body] of [
      ["", "GET"],
      ["", "PATCH", { name: "x" }],
      ["", "DELETE"],
      ["/duplicate", "POST", { name: "x" }],
    ] as const) {
      const response = await callJson(path + suffix, { key: other.testKey, method, body });
      expect(response.body).toMatchObject({ status: 404, code: "capture_template_not_found" });
    }
  });

  it("freezes a live template whose use is recorded directly in D1, with a detail pointing to duplicate", async () => {
    const org = await createOrganization();
    const live = await callJson("/v1/capture-templates", { key: org.liveKey, body: template() });
    expect((await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey, method: "PATCH", body: { stage: "checkin" } })).status).toBe(200);
    await markInUse(org.id, "live", live.body.id);
    const frozen = await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey, method: "PATCH", body: { theme_id: null } });
    expect(frozen.body).toMatchObject({ status: 409, code: "template_frozen" });
    expect(frozen.body.detail).toContain(`/v1/capture-templates/${live.body.id}/duplicate`);
    const archived = await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey, method: "DELETE" });
    expect(archived.body).toMatchObject({ in_use: true });
    expect(archived.body.archived_at).not.toBeNull();
    const again = await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey, method: "DELETE" });
    expect(again.body.archived_at).toBe(archived.body.archived_at);
    expect((await callJson(`/v1/capture-templates/${live.body.id}`, { key: org.liveKey, method: "PATCH", body: { name: "x" } })).body.code).toBe(
      "template_archived",
    );
  });

  it("duplicates an archived template into an active copy, dropping a theme archived since", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Brand", primary_color: "#112233", locale: "en" } });
    const source = await callJson("/v1/capture-templates", {
      key: org.testKey,
      body: template({ theme_id: theme.body.id, stage: "checkin", category: "car" }),
    });
    await callJson(`/v1/capture-templates/${source.body.id}`, { key: org.testKey, method: "DELETE" });
    expect((await callJson(`/v1/capture-themes/${theme.body.id}`, { key: org.testKey, method: "DELETE" })).status).toBe(200);
    const copy = await callJson(`/v1/capture-templates/${source.body.id}/duplicate`, { key: org.testKey, body: { name: "Revived" } });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: "Revived", stage: "checkin", category: "car", in_use: false, archived_at: null, theme_id: null, mode: "test" });
    expect(copy.body.id).not.toBe(source.body.id);
    expect(copy.body.steps).toEqual(source.body.steps);
    expect((await callJson(`/v1/capture-templates/${source.body.id}/duplicate`, { key: org.testKey, body: {} })).body).toMatchObject({
      code: "validation_failed",
      field: "/name",
    });
  });

  it("stores a template with a theme exactly as given, and refuses a theme archived by the time of writing", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Brand", primary_color: "#112233", locale: "en" } });
    const created = await callJson("/v1/capture-templates", {
      key: org.liveKey,
      body: template({ theme_id: theme.body.id, ask_location: true, stage: "checkin" }),
    });
    expect(created.status).toBe(201);
    const read = await callJson(`/v1/capture-templates/${created.body.id}`, { key: org.liveKey });
    expect(read.body).toEqual(created.body);
    expect(read.body).toMatchObject({ theme_id: theme.body.id, ask_location: true, welcome: template().welcome, default_locale: "fr" });
    await env.DB.prepare("UPDATE capture_themes SET archived_at = ? WHERE id = ?").bind(new Date().toISOString(), theme.body.id).run();
    const row = { ...(await findTemplateRow(created.body.id)), id: `tpl_${crypto.randomUUID().replaceAll("-", "")}` };
    expect(await insertTemplateWithActiveTheme(database(env.DB), row)).toBe(false);
    const other = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    const patched = await callJson(`/v1/capture-templates/${other.body.id}`, { key: org.testKey, method: "PATCH", body: { theme_id: theme.body.id } });
    expect(patched.body).toMatchObject({ status: 422, code: "validation_failed", field: "/theme_id" });
  });

  it("refuses an archived theme or another organization's theme in PATCH", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const foreign = await callJson("/v1/capture-themes", { key: other.testKey, body: { name: "Theirs", primary_color: "#112233", locale: "en" } });
    const mine = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Mine", primary_color: "#112233", locale: "en" } });
    await callJson(`/v1/capture-themes/${mine.body.id}`, { key: org.testKey, method: "DELETE" });
    const created = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    for (const themeId of [foreign.body.id, mine.body.id]) {
      const response = await callJson(`/v1/capture-templates/${created.body.id}`, { key: org.testKey, method: "PATCH", body: { theme_id: themeId } });
      expect(response.body).toMatchObject({ status: 422, code: "validation_failed", field: "/theme_id" });
    }
  });

  it("answers 403 insufficient_scope on every template route for a key without manage_templates", async () => {
    const org = await createOrganization();
    const key = await createKey(org.id, { mode: "test", rights: ["create_proof", "read_proof", "manage_settings"] });
    const created = await callJson("/v1/capture-templates", { key: org.testKey, body: template() });
    const id = created.body.id;
    const calls: [string, string, unknown?][] = [
      ["/v1/capture-templates", "POST", template()],
      ["/v1/capture-templates", "GET"],
      [`/v1/capture-templates/${id}`, "GET"],
      [`/v1/capture-templates/${id}`, "PATCH", { name: "x" }],
      [`/v1/capture-templates/${id}/duplicate`, "POST", { name: "x" }],
      [`/v1/capture-templates/${id}`, "DELETE"],
    ];
    for (const [path, method, body] of calls) {
      const response = await callJson(path, { key: key.key, method, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.code).toBe("insufficient_scope");
    }
  });
});

/** Records an (expired, so unbilled) session created from the template, as POST /v1/capture-sessions would. */
async function markInUse(organizationId: string, mode: "test" | "live", templateId: string) {
  const now = new Date().toISOString();
  await env.DB.prepare(
    `INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, template_id,
       template_sha256, locale, created_at, updated_at, expires_at)
     VALUES (?, ?, ?, 'expired', ?, 'ref', 'provider', ?, '', 'en', ?, ?, ?)`,
  )
    .bind(`cps_${crypto.randomUUID().replaceAll("-", "")}`, organizationId, mode, crypto.randomUUID(), templateId, now, now, now)
    .run();
}

describe("resolveTemplateForSession", () => {
  const db = () => database(env.DB);
  const create = async (key: string, extra: Record<string, unknown>) => (await callJson("/v1/capture-templates", { key, body: template(extra) })).body;

  it("returns the named template only in its organization and mode, and never an archived one", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const named = await create(org.testKey, { name: "named" });
    const snapshot = await resolveTemplateForSession(db(), { organizationId: org.id, mode: "test", templateId: named.id });
    expect(snapshot).toMatchObject({ id: named.id, name: "named", default_locale: "fr", theme_id: null, ask_location: false });
    expect(snapshot.steps.map((step) => step.id)).toEqual(["kitchen", "walkthrough"]);
    for (const query of [
      { organizationId: org.id, mode: "live" as const, templateId: named.id },
      { organizationId: other.id, mode: "test" as const, templateId: named.id },
      { organizationId: org.id, mode: "test" as const, templateId: "tpl_missing" },
    ]) {
      await expect(resolveTemplateForSession(db(), query)).rejects.toMatchObject({ code: "template_not_found", status: 422, field: "/template_id" });
    }
    await callJson(`/v1/capture-templates/${named.id}`, { key: org.testKey, method: "DELETE" });
    await expect(resolveTemplateForSession(db(), { organizationId: org.id, mode: "test", templateId: named.id })).rejects.toMatchObject({
      code: "template_not_found",
    });
  });

  it("picks the most specific active match: both, then stage only, then category only; never one with neither", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const resolve = (stage: string | null, category: string | null) =>
      resolveTemplateForSession(db(), { organizationId: org.id, mode: "test", stage, category }).then((snapshot) => snapshot.id);
    const neither = await create(org.testKey, { name: "neither" });
    expect(await resolve("checkin", "car")).toBeNull();
    expect(await resolve(null, null)).toBeNull();
    const categoryOnly = await create(org.testKey, { name: "category", category: "car" });
    const stageOnly = await create(org.testKey, { name: "stage", stage: "checkin" });
    const both = await create(org.testKey, { name: "both", stage: "checkin", category: "car" });
    await create(org.testKey, { name: "other stage", stage: "checkout", category: "car" });
    await create(org.liveKey, { name: "live twin", stage: "checkin", category: "van" });
    expect(await resolve("checkin", "car")).toBe(both.id);
    expect(await resolve("checkin", "van")).toBe(stageOnly.id);
    expect(await resolve("checkin", null)).toBe(stageOnly.id);
    expect(await resolve("return", "car")).toBe(categoryOnly.id);
    expect(await resolve(null, "car")).toBe(categoryOnly.id);
    expect(await resolve("return", "van")).toBeNull();
    expect(neither.id).toMatch(/^tpl_/);
    await callJson(`/v1/capture-templates/${both.id}`, { key: org.testKey, method: "DELETE" });
    expect(await resolve("checkin", "car")).toBe(stageOnly.id);
  });

  it("falls back to the built-in default: one required photo step `photos`, 1 to 20 shots, in the ten page languages", async () => {
    const org = await createOrganization();
    const snapshot = await resolveTemplateForSession(db(), { organizationId: org.id, mode: "live", stage: "checkin", category: null });
    expect(snapshot.id).toBeNull();
    expect(snapshot.steps).toEqual([expect.objectContaining({ id: "photos", required: true, kind: "photo", min_count: 1, max_count: 20 })]);
    for (const text of [snapshot.welcome.title, snapshot.steps[0]!.label, snapshot.steps[0]!.instruction, snapshot.completion.title]) {
      expect(Object.keys(text as object).sort()).toEqual(["ar", "de", "en", "es", "fr", "it", "nl", "pl", "pt-BR", "zh-Hans"]);
    }
  });
});
