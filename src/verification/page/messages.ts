/**
 * Texts of the public verification page, one file per language in messages/ so that concurrent edits do not
 * collide. Every table has the same keys (test/api/verification-page.test.ts): a new key goes into every file,
 * in the terms of docs/translation-glossary.md.
 */
import { matchLocale } from "../../i18n/resolve-locale.ts";
import de from "./messages/de.ts";
import en from "./messages/en.ts";
import es from "./messages/es.ts";
import fr from "./messages/fr.ts";

export const PAGE_LANGUAGES = ["en", "fr", "es", "de"] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

export const PAGE_MESSAGES: Record<PageLanguage, Record<string, string>> = { en, fr, es, de };

/**
 * `?lang=` first, then the ranges of Accept-Language by their `q` weights, each matched by the one fallback
 * rule (the exact tag, then its base language: `zh-CN` reads `zh-Hans`); English when none matches.
 */
export function pageLanguage(query: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  for (const tag of [query, ...acceptedLanguages(acceptLanguage)]) {
    const found = tag ? matchLocale(tag, PAGE_LANGUAGES) : undefined;
    if (found !== undefined) return found as PageLanguage;
  }
  return "en";
}

/** The language ranges of an Accept-Language header, most wanted first (`q=0` means "not this one"). */
function acceptedLanguages(header: string | undefined): string[] {
  const ranges = (header ?? "").split(",").map((part, position) => {
    const [range = "", ...parameters] = part.split(";").map((piece) => piece.trim());
    const weight = parameters.find((parameter) => parameter.startsWith("q="));
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    return { range, q: Number.isFinite(q) ? q : 0, position };
  });
  return ranges
    .filter(({ range, q }) => range !== "" && range !== "*" && q > 0)
    .sort((a, b) => b.q - a.q || a.position - b.position)
    .map(({ range }) => range);
}
