import { describe, expect, it } from "vitest";
import { resolveLocale, resolveText } from "../../src/i18n/resolve-locale.ts";
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
});
