import { describe, expect, it } from "vitest";
// The capture page's own modules, run in Node: plain ES modules with no dependency on the DOM.
import { MESSAGES } from "../../public/capture/messages.js";
import { percent, pickLanguage, translator } from "../../public/capture/i18n.js";
import { resolveLocale } from "../../public/capture/locale-fallback.js";
import { LOCALE_FALLBACK_CASES } from "../api/support/locale-fallback-cases.ts";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("the capture page's own words", () => {
  it("exist in the ten languages of issue 26, with the same keys in every table", () => {
    expect(Object.keys(MESSAGES).sort()).toEqual(["ar", "de", "en", "es", "fr", "it", "nl", "pl", "pt-BR", "zh-Hans"]);
    const english = Object.keys(MESSAGES.en).sort();
    for (const [language, table] of Object.entries(MESSAGES)) expect(Object.keys(table).sort(), language).toEqual(english);
  });

  it("keep the same placeholders in every language, and no text is empty", () => {
    for (const [language, table] of Object.entries(MESSAGES) as [string, Record<string, string>][]) {
      for (const [key, text] of Object.entries(table)) {
        expect(text.trim(), `${language}.${key}`).not.toBe("");
        expect(placeholders(text), `${language}.${key}`).toEqual(placeholders((MESSAGES.en as Record<string, string>)[key]!));
      }
    }
  });

  it("follow the specification's order: exact tag, base language, the template's default, then English", () => {
    expect(pickLanguage("fr", "de")).toBe("fr");
    expect(pickLanguage("fr-CA", "de")).toBe("fr");
    expect(pickLanguage("DE-at", "en")).toBe("de");
    // A German template opened in Japanese: German buttons, not English ones.
    expect(pickLanguage("ja", "de")).toBe("de");
    expect(pickLanguage("ja-JP", "es-419")).toBe("es");
    expect(pickLanguage("ja", "ko")).toBe("en");
    expect(pickLanguage(undefined, undefined)).toBe("en");
  });

  it("follow the same table of cases as the Worker's template texts (one rule, public/capture/locale-fallback.js)", () => {
    for (const { requested, available, defaultLocale, expected, why } of LOCALE_FALLBACK_CASES) {
      expect(resolveLocale(requested, available, defaultLocale), why).toBe(expected);
    }
    // The rows over the page's own languages, through the page's entry point.
    const pageRows = LOCALE_FALLBACK_CASES.filter((row) => row.available.join() === Object.keys(MESSAGES).join());
    expect(pageRows.length).toBeGreaterThan(3);
    for (const { requested, defaultLocale, expected, why } of pageRows) {
      expect(pickLanguage(requested, defaultLocale), why).toBe(expected);
    }
  });

  it("name no kind where a step may be a video (issue 26): the page's title, the promise and the location screen", () => {
    const photo: Record<string, RegExp> = { es: /foto/i, de: /foto/i, "pt-BR": /foto/i, it: /foto/i, nl: /foto/i, pl: /zdję/i, "zh-Hans": /照片/, ar: /صور/ };
    for (const [language, table] of Object.entries(MESSAGES) as [string, Record<string, string>][]) {
      for (const key of ["title", "sealed", "locationTitle", "locationWhy", "locationNone"]) {
        expect(table[key], `${language}.${key}`).not.toMatch(photo[language] ?? /photo/i);
      }
    }
  });

  it("keep their terms: Spanish seals with a sello de tiempo, never fechar; German capitalises a sentence after a colon", () => {
    for (const text of Object.values(MESSAGES.es)) expect(text).not.toMatch(/fech(?!as?\b)/i);
    const sentenceAfterColon = /: (die|der|das|dies|diese|dieser|dieses|ihre|niemand|keine|eine|nehmen|wählen|löschen|gehen|lassen)\b/;
    for (const [key, text] of Object.entries(MESSAGES.de)) expect(text, `de.${key}`).not.toMatch(sentenceAfterColon);
  });

  it("write a percentage as the language does: 60% in English", () => {
    expect(percent(60)).toBe("60%");
  });

  it("speak Chinese by script and Brazilian Portuguese by region (docs/adr/0047)", () => {
    expect(pickLanguage("zh-CN", "en")).toBe("zh-Hans");
    expect(pickLanguage("zh", "en")).toBe("zh-Hans");
    expect(pickLanguage("zh-TW", "en")).toBe("en");
    expect(pickLanguage("pt-br", "en")).toBe("pt-BR");
    expect(pickLanguage("pt-PT", "it")).toBe("it");
    expect(pickLanguage("ar-MA", "en")).toBe("ar");
  });

  it("fill their placeholders", () => {
    expect(translator("de")("step", { i: 1, n: 3 })).toBe("Schritt 1 von 3");
    expect(translator("ar")("step", { i: 1, n: 3 })).toBe("الخطوة 1 من 3");
    expect(translator("fr")("morePhotoN", { n: 2 })).toBe("Prenez encore au moins 2 photos.");
  });
});
