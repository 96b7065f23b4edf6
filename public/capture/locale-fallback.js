// @ts-check
/**
 * The specification's fallback order for a missing language, the one rule of the Worker (template texts,
 * `src/i18n/resolve-locale.ts` imports this file) and of the capture page (its own words): the requested tag,
 * its base language (`pt` for `pt-BR`), the template's `default_locale` (then its base), then English. Tags
 * compare case-insensitively and the available spelling wins; a sibling region (`pt-PT` for `pt-BR`) is never
 * taken. With none of them available: the first available language, else the default itself.
 * Plain JavaScript because the capture page loads it as it is, with no build step.
 * @param {string | null | undefined} requested
 * @param {readonly string[]} available
 * @param {string} defaultLocale
 * @returns {string}
 */
export function resolveLocale(requested, available, defaultLocale) {
  const order = [requested, defaultLocale].flatMap((tag) => (tag ? [tag, tag.split("-")[0] ?? tag] : [])).concat("en");
  for (const tag of order) {
    const found = available.find((candidate) => candidate.toLowerCase() === tag.toLowerCase());
    if (found !== undefined) return found;
  }
  return available[0] ?? defaultLocale;
}
