import { describe, expect, it } from "vitest";
import { resolveLocale, resolveText } from "../../src/i18n/resolve-locale.ts";

describe("language fallback", () => {
  it("takes the exact tag, then the base language, then the default, then English", () => {
    expect(resolveLocale("pt-BR", ["pt-BR", "pt", "en"], "fr")).toBe("pt-BR");
    expect(resolveLocale("pt-BR", ["pt", "en"], "fr")).toBe("pt");
    expect(resolveLocale("es-419", ["fr", "en"], "fr")).toBe("fr");
    expect(resolveLocale("zh-Hans", ["de", "en"], "it")).toBe("en");
    expect(resolveLocale("FR-ca", ["fr", "en"], "en")).toBe("fr");
    expect(resolveLocale("de-AT", ["DE"], "en")).toBe("DE");
  });

  it("resolves a text given as a string or a language map", () => {
    expect(resolveText("Same everywhere", "de", "en")).toBe("Same everywhere");
    expect(resolveText({ en: "Hello", fr: "Bonjour" }, "fr-CA", "en")).toBe("Bonjour");
    expect(resolveText({ en: "Hello", fr: "Bonjour" }, "ja", "fr")).toBe("Bonjour");
  });
});
