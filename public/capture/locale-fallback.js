// @ts-check
/**
 * The specification's fallback order for a missing language, the one rule of the Worker (template texts,
 * `src/i18n/resolve-locale.ts` imports this file) and of both pages (their own words): the requested tag,
 * its base language (`pt` for `pt-BR`), the template's `default_locale` (then its base), then English. Tags
 * compare case-insensitively and the available spelling wins; a sibling region (`pt-PT` for `pt-BR`) is never
 * taken. With none of them available: the first available language, else the default itself.
 * Chinese is matched by script (docs/adr/0047): `zh` and `zh-CN` reach `zh-Hans`, `zh-TW` never does.
 * Plain JavaScript because the capture page loads it as it is, with no build step.
 * @param {string | null | undefined} requested
 * @param {readonly string[]} available
 * @param {string} defaultLocale
 * @returns {string}
 */
export function resolveLocale(requested, available, defaultLocale) {
  for (const tag of [requested, defaultLocale, "en"]) {
    const found = tag ? matchLocale(tag, available) : undefined;
    if (found !== undefined) return found;
  }
  return available[0] ?? defaultLocale;
}

/**
 * The available tag that answers one requested tag (itself, then its base language), or undefined.
 * @param {string} requested
 * @param {readonly string[]} available
 * @returns {string | undefined}
 */
export function matchLocale(requested, available) {
  for (const tag of lookupOrder(requested)) {
    const found = available.find((candidate) => candidate.toLowerCase() === tag.toLowerCase());
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Regions whose Chinese is written in Traditional characters (CLDR's likely subtags). */
const TRADITIONAL_CHINESE_REGIONS = ["tw", "hk", "mo"];

/**
 * A tag, then its base language. A Chinese tag's base keeps its script (given, or CLDR's likely one), and
 * only Simplified Chinese is also plain `zh`: CLDR's parent of `zh-Hant` is the root, not `zh`.
 * @param {string} tag
 * @returns {string[]}
 */
function lookupOrder(tag) {
  const [language = tag, ...subtags] = tag.toLowerCase().split("-");
  if (language !== "zh") return [tag, language];
  const script =
    subtags.find((subtag) => /^[a-z]{4}$/.test(subtag)) ?? (subtags.some((subtag) => TRADITIONAL_CHINESE_REGIONS.includes(subtag)) ? "hant" : "hans");
  return script === "hans" ? [tag, "zh-Hans", "zh"] : [tag, `zh-${script}`];
}

/** Scripts written right to left, by the languages that use them. */
const RIGHT_TO_LEFT = ["ar", "fa", "he", "ur", "yi", "ps", "sd", "ug", "dv", "ckb"];

/**
 * The direction a language's text runs in, for `<html dir>`.
 * @param {string} tag
 * @returns {"rtl" | "ltr"}
 */
export function textDirection(tag) {
  return RIGHT_TO_LEFT.includes(tag.toLowerCase().split("-")[0] ?? "") ? "rtl" : "ltr";
}
