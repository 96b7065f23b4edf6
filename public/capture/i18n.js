// @ts-check
/** Which language the page speaks, and its words in that language; the template's texts arrive already translated. */
import { MESSAGES } from "./messages.js";
import { resolveLocale } from "./locale-fallback.js";

/** The language the page speaks: the one fallback rule (`locale-fallback.js`) over the languages it has words for. */
/**
 * @param {string | null | undefined} requested
 * @param {string | null | undefined} [templateDefault]
 */
export function pickLanguage(requested, templateDefault) {
  return resolveLocale(requested, Object.keys(MESSAGES), templateDefault || "en");
}

/** @typedef {(key: string, values?: Record<string, unknown>) => string} Translate */

/**
 * @param {string} language
 * @returns {Translate}
 */
export function translator(language) {
  /** @type {Record<string, Record<string, string>>} */
  const tables = MESSAGES;
  const table = tables[language] ?? MESSAGES.en;
  /** @type {Record<string, string>} */
  const english = MESSAGES.en;
  return (key, values = {}) => String(table[key] ?? english[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** The page's words in the language it speaks (a live binding: every module sees the change). */
export let t = translator("en");

/** Speaks `language`: the words, `<html lang>` and the title follow. */
/** @param {string} language */
export function speak(language) {
  t = translator(language);
  document.documentElement.lang = language;
  document.title = t("title");
}
