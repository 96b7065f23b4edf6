import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { readThemeLogo } from "../../src/storage/capture-themes.ts";
import { database } from "../../src/db/client.ts";

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
    const mislabelled = await putLogo(org.testKey, theme.body.id, PNG as unknown as string, "image/jpeg");
    expect(mislabelled.status).toBe(422);
    expect(((await mislabelled.json()) as any).code).toBe("logo_type_not_allowed");
    const ok = await putLogo(org.testKey, theme.body.id, PNG as unknown as string, "application/octet-stream");
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

  it("accepts each raster type by its magic number, with its own Content-Type or none", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    const WEBP = Uint8Array.from([0x52, 0x49, 0x46, 0x46, 0x24, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x20]);
    for (const [bytes, type] of [
      [JPEG, "image/jpeg"],
      [WEBP, "image/webp"],
      [PNG, "image/png"],
    ] as const) {
      for (const declared of [type, "application/octet-stream"]) {
        const response = await putLogo(org.testKey, theme.body.id, bytes as unknown as string, declared);
        expect(response.status, `${type} as ${declared}`).toBe(200);
        await response.body?.cancel();
        const stored = await env.FILES.get(`themes/${theme.body.id}/logo`);
        expect(stored?.httpMetadata?.contentType).toBe(type);
        await stored?.body.cancel();
      }
    }
    const gif = await putLogo(org.testKey, theme.body.id, "GIF89a\x01\x00" as string, "image/gif");
    expect(gif.status).toBe(422);
    await gif.body?.cancel();
  });

  it("refuses SVG tricks: prefixed script, encoded javascript, animated links, stylesheets, entities, data URLs", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const svg = (inner: string, attributes = "") => `<svg xmlns="http://www.w3.org/2000/svg"${attributes}>${inner}</svg>`;
    const unsafe = [
      svg('<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>'),
      svg('<a href="&#106;avascript:alert(1)"><text>x</text></a>'),
      svg('<a href="#x"><set attributeName="href" to="&#x6a;avascript:alert(1)"/></a>'),
      svg("<foreignObject><div/></foreignObject>"),
      svg("<rect/>", ' onclick ="alert(1)"'),
      svg('<use xlink:href="https://evil.example/sprite.svg#a" xmlns:xlink="http://www.w3.org/1999/xlink"/>'),
      svg('<image href="data:image/svg+xml;base64,PHN2Zy8+"/>'),
      svg("<style>@import 'https://evil.example/a.css';</style>"),
      svg('<rect style="fill: url(https://evil.example/p)"/>'),
      svg('<rect style="fill: u\\72 l(https://evil.example/p)"/>'),
      `<?xml version="1.0"?><?xml-stylesheet href="https://evil.example/a.css"?>${svg("<rect/>")}`,
      `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg("<text>&x;</text>")}`,
      svg("<rect/>", ' xml:base="https://evil.example/"'),
      // Issue 28: external references in unquoted attributes, and the other ways of writing a value.
      svg("<image href=https://evil.example/x.png />"),
      svg("<image\nhref=https://evil.example/x.png/>"),
      svg("<image xlink:href=//evil.example/x.png />"),
      svg('<image href = "https://evil.example/x.png"/>'),
      svg("<image href\n=\n'https://evil.example/x.png'/>"),
      svg("<image href=&#34;https://evil.example/x.png&#34;/>"),
      svg('<image href=""/>'),
      svg("<image src=https://evil.example/x.png />"),
      svg("<a href=#x><set attributeName=href to=https://evil.example/ /></a>"),
      // Found by the OpenAPI fuzzer: CSS escapes of letters that are not hex digits, and URLs as plain strings.
      svg("<style>rect{background:u\\rl(https://evil.example/x.png)}</style>"),
      svg("<style>@\\import 'https://evil.example/a.css';</style>"),
      svg('<style>rect{background-image:image-set("https://evil.example/x.png" 1x)}</style>'),
      svg("<rect style=\"background-image:-webkit-image-set('https://evil.example/x.png' 1x)\"/>"),
      svg('<style>rect{background:src("https://evil.example/x.png")}</style>'),
    ];
    for (const body of unsafe) {
      const response = await putLogo(org.testKey, theme.body.id, body, "image/svg+xml");
      expect(response.status, body).toBe(422);
      expect(((await response.json()) as any).code).toBe("logo_type_not_allowed");
    }
    const safe = [
      `<?xml version="1.0" encoding="UTF-8"?>\n<!-- brand -->\n${svg('<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><rect width="10" height="10" fill="url(#g)"/>')}`,
      svg('<defs><path id="p" d="M0 0h4v4z"/></defs><use href="#p"/><text x="1" y="2" font-family="sans-serif">Brand &amp; Co</text>', ' viewBox="0 0 10 10"'),
    ];
    for (const body of safe) {
      const response = await putLogo(org.testKey, theme.body.id, body, "image/svg+xml");
      expect(response.status, body).toBe(200);
      await response.body?.cancel();
    }
    const png = await putLogo(org.testKey, theme.body.id, svg("<rect/>"), "image/png");
    expect(png.status).toBe(422);
    await png.body?.cancel();
  });

  it("refuses a logo over 512 KiB whether or not the length is declared, and accepts exactly 512 KiB", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const exact = new Uint8Array(512 * 1024);
    exact.set(PNG);
    const fits = await putLogo(org.testKey, theme.body.id, exact as unknown as string, "image/png");
    expect(fits.status).toBe(200);
    await fits.body?.cancel();
    const over = new Uint8Array(512 * 1024 + 1);
    over.set(PNG);
    const stream = new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < over.length; offset += 64 * 1024) controller.enqueue(over.slice(offset, offset + 64 * 1024));
        controller.close();
      },
    });
    const chunked = await putLogo(org.testKey, theme.body.id, stream as unknown as string, "image/png");
    expect(chunked.status).toBe(422);
    expect(((await chunked.json()) as any).code).toBe("logo_too_large");
  });

  it("exposes the stored logo to the capture page through readThemeLogo", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    expect(await readThemeLogo(database(env.DB), env, theme.body.id)).toBeNull();
    const uploaded = await putLogo(org.testKey, theme.body.id, PNG as unknown as string, "image/png");
    await uploaded.body?.cancel();
    const logo = await readThemeLogo(database(env.DB), env, theme.body.id);
    expect(logo?.contentType).toBe("image/png");
    expect(new Uint8Array(await new Response(logo!.body).arrayBuffer())).toEqual(PNG);
  });

  it("keeps an archived theme read-only and not the default; the next theme created becomes the default", async () => {
    const org = await createOrganization();
    const first = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const archived = await callJson(`/v1/capture-themes/${first.body.id}`, { key: org.testKey, method: "DELETE" });
    expect(archived.body).toMatchObject({ is_default: false });
    expect(archived.body.archived_at).not.toBeNull();
    const again = await callJson(`/v1/capture-themes/${first.body.id}`, { key: org.testKey, method: "DELETE" });
    expect(again.body.archived_at).toBe(archived.body.archived_at);
    for (const body of [{ name: "B" }, { is_default: true }]) {
      const response = await callJson(`/v1/capture-themes/${first.body.id}`, { key: org.testKey, method: "PATCH", body });
      expect(response.body).toMatchObject({ status: 409, code: "theme_archived" });
    }
    const logo = await putLogo(org.testKey, first.body.id, PNG as unknown as string, "image/png");
    expect(logo.status).toBe(409);
    await logo.body?.cancel();
    const next = await callJson("/v1/capture-themes", { key: org.liveKey, body: { name: "C", primary_color: "#ffffff", locale: "de" } });
    expect(next.body.is_default).toBe(true);
  });

  it("gives exactly one default when the first themes are created concurrently", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        callJson("/v1/capture-themes", { key: org.testKey, body: { name: `T${i}`, primary_color: "#123456", locale: "en" } }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual(Array(8).fill(201));
    expect(created.filter((response) => response.body.is_default)).toHaveLength(1);
  });

  it("updates name, colour and language, and refuses an empty or unknown change", async () => {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const updated = await callJson(`/v1/capture-themes/${theme.body.id}`, {
      key: org.testKey,
      method: "PATCH",
      body: { name: "B", primary_color: "#ABCDEF", locale: "pt-BR" },
    });
    expect(updated.body).toMatchObject({ name: "B", primary_color: "#abcdef", locale: "pt-BR", is_default: true });
    expect((await callJson(`/v1/capture-themes/${theme.body.id}`, { key: org.testKey, method: "PATCH", body: {} })).body.code).toBe("validation_failed");
    expect((await callJson(`/v1/capture-themes/${theme.body.id}`, { key: org.testKey, method: "PATCH", body: { is_default: false } })).body).toMatchObject({
      code: "validation_failed",
      field: "/is_default",
    });
    expect((await callJson("/v1/capture-themes/thm_missing", { key: org.testKey, method: "PATCH", body: { name: "x" } })).body).toMatchObject({
      status: 404,
      code: "capture_theme_not_found",
    });
  });

  it("lists the organization's themes newest first, page by page, from either mode", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const key = i % 2 === 0 ? org.testKey : org.liveKey;
      ids.push((await callJson("/v1/capture-themes", { key, body: { name: `T${i}`, primary_color: "#123456", locale: "en" } })).body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await callJson(`/v1/capture-themes?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: org.liveKey });
      seen.push(...page.body.data.map((theme: any) => theme.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("answers 403 insufficient_scope on every theme route for a key without manage_templates", async () => {
    const org = await createOrganization();
    const key = await createKey(org.id, { mode: "live", rights: ["create_proof", "read_proof", "manage_settings"] });
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "A", primary_color: "#000000", locale: "en" } });
    const calls: [string, string, unknown?][] = [
      ["/v1/capture-themes", "POST", { name: "A", primary_color: "#000000", locale: "en" }],
      ["/v1/capture-themes", "GET"],
      [`/v1/capture-themes/${theme.body.id}`, "GET"],
      [`/v1/capture-themes/${theme.body.id}`, "PATCH", { name: "x" }],
      [`/v1/capture-themes/${theme.body.id}`, "DELETE"],
    ];
    for (const [path, method, body] of calls) {
      const response = await callJson(path, { key: key.key, method, body });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    const logo = await putLogo(key.key, theme.body.id, PNG as unknown as string);
    expect(logo.status).toBe(403);
    await logo.body?.cancel();
  });
});
