/**
 * One table of cases for the one language fallback rule (`public/capture/locale-fallback.js`), run on both
 * sides: in workerd through the Worker's `src/i18n/resolve-locale.ts` (test/api/resolve-locale.test.ts) and in
 * Node through the capture page's own module (test/e2e/capture-page-messages.e2e.test.ts).
 */
export interface LocaleFallbackCase {
  requested: string | undefined;
  available: readonly string[];
  defaultLocale: string;
  expected: string;
  why: string;
}

/** The languages the capture page had words for first (public/capture/messages.js). */
const PAGE = ["en", "fr", "es", "de"];

/** The ten languages both pages speak (issue 26). */
const TEN = ["en", "fr", "es", "de", "pt-BR", "it", "nl", "pl", "zh-Hans", "ar"];

export const LOCALE_FALLBACK_CASES: readonly LocaleFallbackCase[] = [
  { requested: "pt-BR", available: ["pt-BR", "pt", "en"], defaultLocale: "fr", expected: "pt-BR", why: "the exact tag first" },
  { requested: "pt-BR", available: ["pt", "en"], defaultLocale: "fr", expected: "pt", why: "then its base language" },
  { requested: "zh-Hans-CN", available: ["zh", "en"], defaultLocale: "en", expected: "zh", why: "the base of a three-part tag" },
  { requested: "es-419", available: ["fr", "en"], defaultLocale: "fr", expected: "fr", why: "then the template's default" },
  { requested: "ja", available: PAGE, defaultLocale: "de", expected: "de", why: "a German template opened in Japanese: German, not English" },
  { requested: "pt-BR", available: PAGE, defaultLocale: "es-419", expected: "es", why: "then the default's base language" },
  { requested: "zh-Hans", available: ["de", "en"], defaultLocale: "it", expected: "en", why: "then English" },
  { requested: "ja", available: PAGE, defaultLocale: "ko", expected: "en", why: "English when neither is available" },
  { requested: undefined, available: PAGE, defaultLocale: "en", expected: "en", why: "no request at all" },
  { requested: "pt-BR", available: ["pt-PT", "en"], defaultLocale: "en", expected: "en", why: "never a sibling region" },
  { requested: "FR-ca", available: ["fr", "en"], defaultLocale: "en", expected: "fr", why: "tags compare case-insensitively" },
  { requested: "DE-at", available: PAGE, defaultLocale: "en", expected: "de", why: "case-insensitive base, the page's spelling" },
  { requested: "de-AT", available: ["DE"], defaultLocale: "en", expected: "DE", why: "the available spelling wins" },
  { requested: "pt-br", available: ["pt-BR"], defaultLocale: "en", expected: "pt-BR", why: "the available spelling of the exact tag" },
  { requested: "ja", available: ["EN", "fr"], defaultLocale: "it", expected: "EN", why: "English in any case" },
  { requested: "ja", available: ["de", "fr"], defaultLocale: "it", expected: "de", why: "nothing in the order: the first available" },
  { requested: "ja", available: [], defaultLocale: "it", expected: "it", why: "nothing available: the default itself" },
  // The ten languages of both pages (docs/adr/0047).
  { requested: "pt-BR", available: TEN, defaultLocale: "en", expected: "pt-BR", why: "Brazilian Portuguese" },
  { requested: "pt", available: TEN, defaultLocale: "de", expected: "de", why: "plain pt is not a request for Brazil: the default" },
  { requested: "pt-PT", available: TEN, defaultLocale: "en", expected: "en", why: "European Portuguese never takes its sibling pt-BR" },
  { requested: "zh-Hans", available: TEN, defaultLocale: "en", expected: "zh-Hans", why: "Simplified Chinese" },
  { requested: "zh-CN", available: TEN, defaultLocale: "en", expected: "zh-Hans", why: "China writes Simplified: zh-CN reads zh-Hans" },
  { requested: "zh", available: TEN, defaultLocale: "en", expected: "zh-Hans", why: "plain Chinese is Simplified (CLDR likely script)" },
  { requested: "zh-Hans-SG", available: TEN, defaultLocale: "en", expected: "zh-Hans", why: "the script of a three-part tag" },
  { requested: "zh-TW", available: TEN, defaultLocale: "fr", expected: "fr", why: "Taiwan writes Traditional: never Simplified, the default" },
  { requested: "zh-HK", available: TEN, defaultLocale: "en", expected: "en", why: "Hong Kong writes Traditional: then English" },
  { requested: "zh-Hant", available: ["zh", "en"], defaultLocale: "en", expected: "en", why: "a template's plain zh text is Simplified" },
  { requested: "zh-TW", available: ["zh-Hant", "zh-Hans"], defaultLocale: "en", expected: "zh-Hant", why: "zh-TW reads a Traditional text" },
  { requested: "ar-EG", available: TEN, defaultLocale: "en", expected: "ar", why: "Arabic, any region" },
  { requested: "nl-BE", available: TEN, defaultLocale: "en", expected: "nl", why: "Flemish reads Dutch" },
];
