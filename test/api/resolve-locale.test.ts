import { describe, expect, it } from "vitest";
import { resolveLocale, resolveText, textDirection } from "../../src/i18n/resolve-locale.ts";
import { pageLanguage } from "../../src/verification/page/messages.ts";
import { LOCALE_FALLBACK_CASES } from "./support/locale-fallback-cases.ts";

describe("language fallback", () => {
  it("takes the exact tag, then the base language, then the default, then English", () => {
    expect(resolveLocale("pt-BR", ["pt-BR", "pt", "en"], "fr")).toBe("pt-BR");
    expect(resolveLocale("pt-BR", ["pt", "en"], "fr")).toBe("pt");
    expect(resolveLocale("es-419", ["fr", "en"], "fr")).toBe("fr");
    expect(resolveLocale("zh-Hans", ["de", "en"], "it")).toBe("en");
    expect(resolveLocale("zh-Hans-CN", ["zh", "en"], "en")).toBe("zh");
  });

  it("compares tags case-insensitively and returns the available spelling", () => {
    expect(resolveLocale("FR-ca", ["fr", "en"], "en")).toBe("fr");
    expect(resolveLocale("de-AT", ["DE"], "en")).toBe("DE");
    expect(resolveLocale("pt-br", ["pt-BR"], "en")).toBe("pt-BR");
    expect(resolveLocale("ja", ["EN", "fr"], "it")).toBe("EN");
  });

  it("does not take a sibling region for the base language", () => {
    expect(resolveLocale("pt-BR", ["pt-PT", "en"], "en")).toBe("en");
  });

  it("still answers when nothing in the order is available", () => {
    expect(resolveLocale("ja", ["de", "fr"], "it")).toBe("de");
    expect(resolveLocale("ja", [], "it")).toBe("it");
  });

  it("follows the same table of cases as the capture page (one rule, public/capture/locale-fallback.js)", () => {
    for (const { requested, available, defaultLocale, expected, why } of LOCALE_FALLBACK_CASES) {
      expect(resolveLocale(requested, available, defaultLocale), why).toBe(expected);
    }
  });

  it("resolves a text given as a string or a language map", () => {
    expect(resolveText("Same everywhere", "de", "en")).toBe("Same everywhere");
    expect(resolveText({ en: "Hello", fr: "Bonjour" }, "fr-CA", "en")).toBe("Bonjour");
    expect(resolveText({ en: "Hello", fr: "Bonjour" }, "ja", "fr")).toBe("Bonjour");
    expect(resolveText({ en: "Hello", fr: "Bonjour" }, "ja", "it")).toBe("Hello");
    expect(resolveText({ "pt-BR": "Olá", en: "Hello" }, "pt", "en")).toBe("Hello");
  });

  it("matches Chinese by script: zh and zh-CN take Simplified, zh-TW and zh-HK never do", () => {
    const tables = ["en", "zh-Hans", "ar"];
    expect(resolveLocale("zh-CN", tables, "en")).toBe("zh-Hans");
    expect(resolveLocale("ZH", tables, "en")).toBe("zh-Hans");
    expect(resolveLocale("zh-Hant-TW", tables, "ar")).toBe("ar");
    expect(resolveLocale("zh-MO", tables, "en")).toBe("en");
    expect(resolveText({ zh: "你好", en: "Hello" }, "zh-CN", "en")).toBe("你好");
    expect(resolveText({ zh: "你好", en: "Hello" }, "zh-TW", "en")).toBe("Hello");
  });

  it("says which languages run right to left", () => {
    expect(textDirection("ar")).toBe("rtl");
    expect(textDirection("AR-eg")).toBe("rtl");
    expect(textDirection("he")).toBe("rtl");
    expect(textDirection("zh-Hans")).toBe("ltr");
    expect(textDirection("pt-BR")).toBe("ltr");
  });
});

describe("the verification page's language", () => {
  it("takes ?lang= first, then Accept-Language by weight, each through the fallback rule, else English", () => {
    expect(pageLanguage("de", "fr")).toBe("de");
    expect(pageLanguage("xx", "fr-CA,fr;q=0.9")).toBe("fr");
    expect(pageLanguage(undefined, "ja;q=1, es;q=0.4, de;q=0.8")).toBe("de");
    expect(pageLanguage(undefined, "de;q=0, es")).toBe("es");
    expect(pageLanguage(undefined, "*;q=0.5, fr;q=0.1")).toBe("fr");
    expect(pageLanguage(undefined, ";;,,q=;")).toBe("en");
    expect(pageLanguage(undefined, "fr-".padEnd(8000, "x"))).toBe("fr");
    expect(pageLanguage(undefined, undefined)).toBe("en");
  });

  it("reads Chinese by script: zh-CN and zh Simplified, zh-TW (and the bare zh a browser adds after it) not", () => {
    expect(pageLanguage(undefined, "zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh-Hans");
    expect(pageLanguage(undefined, "zh")).toBe("zh-Hans");
    expect(pageLanguage(undefined, "zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7")).toBe("en");
    expect(pageLanguage(undefined, "zh-HK,zh;q=0.9,fr;q=0.5")).toBe("fr");
    expect(pageLanguage("zh-CN", "zh-TW")).toBe("zh-Hans");
    expect(pageLanguage(undefined, "pt-BR,pt;q=0.9")).toBe("pt-BR");
    expect(pageLanguage(undefined, "pt-PT,pt;q=0.9,en;q=0.8")).toBe("en");
    expect(pageLanguage(undefined, "ar-SA,ar;q=0.9")).toBe("ar");
  });
});
