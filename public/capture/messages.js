// @ts-check
/**
 * The capture page's own words, one file per language in messages/ so that concurrent edits do not collide.
 * Every table has the same keys (test/e2e/capture-page-messages.e2e.test.ts): a new key goes into every file,
 * in the terms of docs/translation-glossary.md.
 */
import ar from "./messages/ar.js";
import de from "./messages/de.js";
import en from "./messages/en.js";
import es from "./messages/es.js";
import fr from "./messages/fr.js";
import it from "./messages/it.js";
import nl from "./messages/nl.js";
import pl from "./messages/pl.js";
import ptBR from "./messages/pt-BR.js";
import zhHans from "./messages/zh-Hans.js";

/** The ten languages (docs/adr/0047), each under the tag its text is written in. */
export const MESSAGES = { en, fr, es, de, "pt-BR": ptBR, it, nl, pl, "zh-Hans": zhHans, ar };
