import type { LocalizedText } from "../capture-templates/snapshot.ts";

/**
 * The specification's fallback order: the exact tag, then its base language (`pt` for `pt-BR`), then the
 * template's default language, then English. Tags compare case-insensitively; the available spelling wins.
 */
export function resolveLocale(requested: string, available: readonly string[], defaultLocale: string): string {
  const find = (tag: string) => available.find((candidate) => candidate.toLowerCase() === tag.toLowerCase());
  const base = requested.split("-")[0] ?? requested;
  return find(requested) ?? find(base) ?? find(defaultLocale) ?? find("en") ?? available[0] ?? defaultLocale;
}

export function resolveText(text: LocalizedText, locale: string, defaultLocale: string): string {
  if (typeof text === "string") return text;
  const chosen = resolveLocale(locale, Object.keys(text), defaultLocale);
  return text[chosen] ?? "";
}
