import type { LocalizedText } from "../capture-templates/snapshot.ts";
import { matchLocale, resolveLocale, textDirection } from "../../public/capture/locale-fallback.js";

/** The fallback rule is the capture page's own file, so that the page and the Worker cannot drift apart. */
export { matchLocale, resolveLocale, textDirection };

export function resolveText(text: LocalizedText, locale: string, defaultLocale: string): string {
  if (typeof text === "string") return text;
  const chosen = resolveLocale(locale, Object.keys(text), defaultLocale);
  return text[chosen] ?? "";
}
