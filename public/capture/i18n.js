// @ts-check
/** Which language the page speaks, and its words in that language; the template's texts arrive already translated. */
import { MESSAGES } from "./messages.js";
import { resolveLocale } from "./locale-fallback.js";

/** The language the page speaks: the one fallback rule (`locale-fallback.js`) over the languages it has words for. */
export function pickLanguage(requested, templateDefault) {
  return resolveLocale(requested, Object.keys(MESSAGES), templateDefault || "en");
}

export function translator(language) {
  const table = MESSAGES[language] ?? MESSAGES.en;
  return (key, values = {}) => String(table[key] ?? MESSAGES.en[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** The page's words in the language it speaks (a live binding: every module sees the change). */
export let t = translator("en");

/** Speaks `language`: the words, `<html lang>` and the title follow. */
export function speak(language) {
  t = translator(language);
  document.documentElement.lang = language;
  document.title = t("title");
}
