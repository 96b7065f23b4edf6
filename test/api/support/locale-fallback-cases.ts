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

/** The languages the capture page has words for (public/capture/messages.js). */
const PAGE = ["en", "fr", "es", "de"];

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
];
