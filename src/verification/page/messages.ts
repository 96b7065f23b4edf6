/**
 * Texts of the public verification page, one file per language in messages/ so that concurrent edits do not
 * collide. Every table has the same keys (test/api/verification-page.test.ts): a new key goes into every file,
 * in the terms of docs/translation-glossary.md.
 */
import { matchLocale } from "../../i18n/resolve-locale.ts";
import ar from "./messages/ar.ts";
import de from "./messages/de.ts";
import en from "./messages/en.ts";
import es from "./messages/es.ts";
import fr from "./messages/fr.ts";
import it from "./messages/it.ts";
import nl from "./messages/nl.ts";
import pl from "./messages/pl.ts";
import ptBR from "./messages/pt-BR.ts";
import zhHans from "./messages/zh-Hans.ts";

/** The ten languages (docs/adr/0047), each under the tag its text is written in. */
export const PAGE_LANGUAGES = ["en", "fr", "es", "de", "pt-BR", "it", "nl", "pl", "zh-Hans", "ar"] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

export const PAGE_MESSAGES: Record<PageLanguage, Record<string, string>> = { en, fr, es, de, "pt-BR": ptBR, it, nl, pl, "zh-Hans": zhHans, ar };

/** Each language in its own words, for the language menu: a reader looks for the name they can read. */
export const LANGUAGE_NAMES: Record<PageLanguage, string> = {
  en: "English",
  fr: "Français",
  es: "Español",
  de: "Deutsch",
  "pt-BR": "Português (Brasil)",
  it: "Italiano",
  nl: "Nederlands",
  pl: "Polski",
  "zh-Hans": "简体中文",
  ar: "العربية",
};

/**
 * `?lang=` first, then the ranges of Accept-Language by their `q` weights, each matched by the one fallback
 * rule (the exact tag, then its base language: `zh-CN` reads `zh-Hans`); English when none matches.
 */
export function pageLanguage(query: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  const ranges = acceptedLanguages(acceptLanguage);
  // Browsers add the bare language after the reader's own ("zh-TW,zh;q=0.9"): that zh is Traditional too.
  const traditional = ranges.some((range) => matchLocale(range, ["zh-Hant"]) !== undefined);
  for (const tag of [query, ...ranges.map((range) => (traditional && range.toLowerCase() === "zh" ? "zh-Hant" : range))]) {
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
