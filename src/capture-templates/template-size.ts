import { ApiError } from "../errors/api-error.ts";
import { canonicalJson } from "../../shared/canonical-json.ts";

/**
 * The most a template's content (default language, welcome, steps, completion) may take, as the UTF-8
 * bytes of its canonical JSON. A template lives in two D1 rows (capture_templates, template_snapshots)
 * and D1 refuses a row over 2,000,000 bytes: a quarter of that leaves room for the other columns and for
 * the snapshot's own fields. 20 steps in 20 languages with instructions of ~500 characters fit.
 */
export const MAX_TEMPLATE_BYTES = 500_000;

export function templateBytes(content: unknown): number {
  return new TextEncoder().encode(canonicalJson(content)).byteLength;
}

export function assertTemplateFitsStorage(content: { default_locale: string; welcome: unknown; steps: unknown; completion: unknown }): void {
  const bytes = templateBytes({ default_locale: content.default_locale, welcome: content.welcome, steps: content.steps, completion: content.completion });
  if (bytes > MAX_TEMPLATE_BYTES) {
    throw new ApiError("template_too_large", {
      detail: `This template's texts take ${bytes} bytes (UTF-8 JSON); at most ${MAX_TEMPLATE_BYTES}. Shorten the instructions or use fewer languages.`,
    });
  }
}
