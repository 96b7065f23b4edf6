// @ts-check
/** Which language the page speaks, and its words in that language; the template's texts arrive already translated. */
import { MESSAGES } from "./messages.js";

/**
 * The specification's order: the exact tag, its base language, the template's default language (and its
 * base), then English. Returns a language the page has a table for.
 */
export function pickLanguage(requested, templateDefault) {
  const candidates = [requested, templateDefault].flatMap((tag) => {
    const lower = String(tag || "").toLowerCase();
    return lower ? [lower, lower.split("-")[0]] : [];
  });
  return candidates.find((candidate) => Object.hasOwn(MESSAGES, candidate)) ?? "en";
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
