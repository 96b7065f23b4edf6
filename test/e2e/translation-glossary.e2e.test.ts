import { describe, expect, it } from "vitest";
// Both pages' tables, run in Node: plain modules with no dependency on the DOM or the Worker.
import { MESSAGES } from "../../public/capture/messages.js";
import { PAGE_LANGUAGES, PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import { CLAIM_TEXTS } from "../../src/verification/claims.ts";

/**
 * docs/translation-glossary.md as a check: a text whose English names a timestamp, a seal, a fingerprint or
 * the proof uses that language's one term for it (any inflection), on the capture page, the verification page
 * and in the claims. A new key written with another word (Spanish "marca de tiempo", "fechar") fails here.
 */
const GLOSSARY: Record<string, { english: RegExp; terms: Record<string, RegExp>; except?: string[] }> = {
  timestamp: {
    english: /timestamp/i,
    terms: {
      fr: /horodat/i,
      es: /sellos? de tiempo|sellado de tiempo/i,
      de: /zeitstempel/i,
      "pt-BR": /carimbos? do tempo/i,
      it: /marc(a|he) temporal|marcatura temporale/i,
      nl: /tijdstempel/i,
      pl: /znacznik|znakowania czasem|oznaczenia czasem/i,
      "zh-Hans": /时间戳/,
      ar: /طابع|طوابع/,
    },
  },
  fingerprint: {
    english: /fingerprint/i,
    terms: {
      fr: /empreinte/i,
      es: /huella/i,
      de: /fingerabdr/i,
      "pt-BR": /impress(ão|ões) digita/i,
      it: /impront/i,
      nl: /vingerafdruk/i,
      pl: /odcisk/i,
      "zh-Hans": /指纹/,
      ar: /بصم/,
    },
  },
  seal: {
    english: /\bseal/i,
    terms: {
      fr: /scell|sceau/i,
      es: /sell/i,
      de: /siegel/i,
      "pt-BR": /sel[oa]|selad|selag/i,
      it: /sigill/i,
      nl: /zegel/i,
      pl: /pieczę|opieczęt/i,
      "zh-Hans": /封存|印章/,
      ar: /ختم|مختوم|خُتم|تُختم|يُختم|ختمها|ختمتها/,
    },
  },
  proof: {
    english: /\bproofs?\b/i,
    terms: {
      fr: /preuve/i,
      es: /prueba/i,
      de: /nachweis/i,
      "pt-BR": /prova/i,
      it: /prov[ae]/i,
      nl: /bewijs/i,
      pl: /dow[oó]d/i,
      "zh-Hans": /存证/,
      ar: /إثبات/,
    },
    // "when the proof was timestamped": the languages say "at the time of the timestamp".
    except: ["check_revocation"],
  },
};

const claims = (language: string) =>
  Object.fromEntries(Object.entries(CLAIM_TEXTS).map(([code, texts]) => [`claim_${code}`, (texts as Record<string, string>)[language]!]));
const tables: Record<string, (language: string) => Record<string, string>> = {
  "capture page": (language) => (MESSAGES as Record<string, Record<string, string>>)[language]!,
  "verification page": (language) => ({ ...PAGE_MESSAGES[language as (typeof PAGE_LANGUAGES)[number]], ...claims(language) }),
};

describe("the glossary's terms (docs/translation-glossary.md)", () => {
  for (const [concept, { english, terms, except = [] }] of Object.entries(GLOSSARY)) {
    it(`say ${concept} with one term per language, on both pages`, () => {
      expect(Object.keys(terms).sort()).toEqual(PAGE_LANGUAGES.filter((language) => language !== "en").sort());
      let checked = 0;
      for (const [page, table] of Object.entries(tables)) {
        const source = table("en");
        const keys = Object.keys(source).filter((key) => english.test(source[key]!) && !except.includes(key));
        checked += keys.length;
        for (const [language, term] of Object.entries(terms)) {
          const translated = table(language);
          for (const key of keys) expect(translated[key], `${page} ${language}.${key}`).toMatch(term);
        }
      }
      expect(checked, `texts naming ${concept}`).toBeGreaterThan(2);
    });
  }
});
