/**
 * Texts of the public verification page, one file per language in messages/ so that concurrent edits do not
 * collide. Every table has the same keys (test/api/verification-page.test.ts): a new key goes into every file,
 * in the terms of docs/translation-glossary.md.
 */
import de from "./messages/de.ts";
import en from "./messages/en.ts";
import es from "./messages/es.ts";
import fr from "./messages/fr.ts";

export const PAGE_LANGUAGES = ["en", "fr", "es", "de"] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

export const PAGE_MESSAGES: Record<PageLanguage, Record<string, string>> = { en, fr, es, de };

/** `?lang=` first, then the first supported language of Accept-Language, then English. */
export function pageLanguage(query: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  const candidates = [query ?? "", ...(acceptLanguage ?? "").split(",").map((part) => part.split(";")[0]!.trim())];
  for (const candidate of candidates) {
    const base = candidate.toLowerCase().split("-")[0] as PageLanguage;
    if (PAGE_LANGUAGES.includes(base)) return base;
  }
  return "en";
}
