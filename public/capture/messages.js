// @ts-check
/**
 * The capture page's own words, one file per language in messages/ so that concurrent edits do not collide.
 * Every table has the same keys (test/e2e/capture-page-messages.e2e.test.ts): a new key goes into every file,
 * in the terms of docs/translation-glossary.md.
 */
import de from "./messages/de.js";
import en from "./messages/en.js";
import es from "./messages/es.js";
import fr from "./messages/fr.js";

export const MESSAGES = { en, fr, es, de };
