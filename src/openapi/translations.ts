/**
 * The OpenAPI document is written in English; `?lang=fr` swaps every summary, description and title for
 * its French translation. Each text is declared with `t(en, fr)` next to where it is used, which fills
 * this table; a test fails when a text of the document has no translation.
 */
const french = new Map<string, string>();

export function t(en: string, fr: string): string {
  const existing = french.get(en);
  if (existing !== undefined && existing !== fr) {
    throw new Error(`Two French translations for "${en}": "${existing}" and "${fr}"`);
  }
  french.set(en, fr);
  return en;
}

export function toFrench(en: string): string | undefined {
  return french.get(en);
}

const TRANSLATED_KEYS = new Set(["summary", "description", "title"]);

/** Deep copy of an OpenAPI document with its human texts in French; identifiers are untouched. */
export function translateDocument<T>(document: T, missing: string[] = []): T {
  const visit = (value: unknown, key: string | undefined, parentIsProperties: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => visit(item, undefined, false));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        // Under `properties`, keys are property names (a property may be called `description`).
        out[k] = visit(v, parentIsProperties ? undefined : k, k === "properties");
      }
      return out;
    }
    if (typeof value === "string" && key !== undefined && TRANSLATED_KEYS.has(key)) {
      const translated = french.get(value);
      if (translated === undefined) missing.push(value);
      return translated ?? value;
    }
    return value;
  };
  return visit(document, undefined, false) as T;
}
