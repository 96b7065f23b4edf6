// @ts-check
/** Which language the page speaks, and its words in that language; the template's texts arrive already translated. */
import { MESSAGES } from "./messages.js";
import { resolveLocale, textDirection } from "./locale-fallback.js";

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

/** The page's language, for the `Intl` formats of its numbers and times. */
export let spoken = "en";

/**
 * Western digits in every language (ADR 0047), asked for rather than left to the engine: WebKitGTK's ICU writes
 * `ar` times with Arabic-Indic digits where Chromium and Firefox write Western ones.
 */
export const WESTERN_DIGITS = { numberingSystem: "latn" };

/** Speaks `language`: the words, `<html lang>`, `<html dir>` (Arabic runs right to left) and the title follow. */
/** @param {string} language */
export function speak(language) {
  t = translator(language);
  spoken = language;
  document.documentElement.lang = language;
  document.documentElement.dir = textDirection(language);
  document.title = t("title");
}

/**
 * A share of 0 to 100 as the page's language writes a percentage ("60%" in English, "60 %" in French).
 * @param {number} value
 */
export function percent(value) {
  return new Intl.NumberFormat(spoken, { ...WESTERN_DIGITS, style: "percent", maximumFractionDigits: 0 }).format(value / 100);
}
