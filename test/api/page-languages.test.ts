import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { LANGUAGE_NAMES, PAGE_LANGUAGES, PAGE_MESSAGES } from "../../src/verification/page/messages.ts";

/** The verification page as a browser in that language asks for it. */
async function page(path: string, acceptLanguage: string) {
  const response = await call(path, { headers: { Accept: "text/html", "Accept-Language": acceptLanguage } });
  return { response, html: await response.text() };
}

describe("the verification page's ten languages (issue 26, docs/adr/0047)", () => {
  it("answers Accept-Language through the fallback rule: zh-CN reads Simplified Chinese, zh-TW English, pt-BR Brazilian", async () => {
    for (const [accept, lang] of [
      ["zh-CN,zh;q=0.9,en;q=0.8", "zh-Hans"],
      ["zh", "zh-Hans"],
      ["zh-TW,zh;q=0.9", "en"],
      ["zh-HK", "en"],
      ["pt-BR,pt;q=0.9", "pt-BR"],
      ["pt-PT,pt;q=0.9", "en"],
      ["ar-EG,ar;q=0.9", "ar"],
      ["nl-BE", "nl"],
      ["pl-PL", "pl"],
      ["it-CH", "it"],
    ] as const) {
      const { response, html } = await page("/p/prf_unknown", accept);
      expect(response.status, accept).toBe(404);
      expect(response.headers.get("Content-Language"), accept).toBe(lang);
      expect(html, accept).toContain(`<html lang="${lang}" dir="${lang === "ar" ? "rtl" : "ltr"}">`);
      expect(html, accept).toContain(`<h1>${PAGE_MESSAGES[lang].notFoundTitle}</h1>`);
    }
  });

  it("lays Arabic out right to left, keeps identifiers left to right, and names each language in its own words", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    const { html } = await page(`/p/${proofId}?lang=ar`, "en");
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain(`<h1>${PAGE_MESSAGES.ar.title}</h1>`);
    expect(html).toMatch(/<code id="proof-id" dir="ltr">prf_/);
    for (const code of PAGE_LANGUAGES) {
      expect(html, code).toContain(`<a href="?lang=${code}" lang="${code}" dir="${code === "ar" ? "rtl" : "ltr"}"`);
      expect(html, code).toContain(`>${LANGUAGE_NAMES[code]}</a>`);
    }
  });

  it("never calls a pending proof sealed in its heading or title, in any of the six new languages", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "live", 1);
    for (const lang of ["pt-BR", "it", "nl", "pl", "zh-Hans", "ar"] as const) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`, "en");
      const headings = [/<h1>([^<]*)<\/h1>/.exec(html)![1], /<title>([^<]*)<\/title>/.exec(html)![1]];
      for (const heading of headings) expect(heading, lang).not.toMatch(/sela|selo|sigill|verzegel|pieczęt|封存|ختم|مختوم/i);
    }
  });

  it("joins the authority and its qualification with the language's own comma", async () => {
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "test", 1);
    await env.DB.prepare(
      "UPDATE proofs SET status = 'sealed', manifest_sha256 = ?, timestamp_gen_time = '2026-11-22T10:00:00Z', timestamp_authority = 'Test TSA', timestamp_qualified = 0, timestamp_serial = '01', timestamp_policy = '1.2.3', sealed_at = '2026-11-22T10:00:01Z' WHERE id = ?",
    )
      .bind("a".repeat(64), proofId)
      .run();
    for (const [lang, comma] of [
      ["en", ", "],
      ["zh-Hans", "，"],
      ["ar", "، "],
    ] as const) {
      const { html } = await page(`/p/${proofId}?lang=${lang}`, "en");
      const m = PAGE_MESSAGES[lang];
      expect(html, lang).toContain(`data-testid="authority">${m.testAuthority}${comma}${m.notQualified}</dd>`);
    }
  });
});
