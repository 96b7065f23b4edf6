import { ApiError } from "../errors/api-error.ts";
import { assertTemplateFitsStorage } from "./template-size.ts";
import { isDefaultCompletion, type LocalizedText, type TemplateStep } from "./snapshot.ts";

export interface TemplateContent {
  default_locale: string;
  welcome: { title: LocalizedText; body: LocalizedText | null };
  steps: TemplateStep[];
  completion: { title: LocalizedText; body: LocalizedText | null };
}

const MAX_LANGUAGES = 20;

/**
 * Rules zod cannot express alone: every language map includes the default language, at most 20
 * languages over the whole template, unique step ids, coherent shot counts. The built-in thanks that a
 * template created without completion texts gets are the service's, in the page's ten languages: they
 * do not count toward the 20, which are the integrator's own (the specification's "a template holds").
 */
export function validateTemplateContent(template: TemplateContent): void {
  assertTemplateFitsStorage(template);
  const languages = new Set<string>([template.default_locale.toLowerCase()]);
  // The pointer of the first text that brought in a language beyond the limit: where to look for it.
  let overLimitAt: string | undefined;
  const checkText = (text: LocalizedText | null, pointer: string, counted = true) => {
    if (text === null || typeof text === "string") return;
    const tags = Object.keys(text).map((tag) => tag.toLowerCase());
    // Tags compare case-insensitively, so `en` and `EN` in one map would make the choice arbitrary.
    const repeated = Object.keys(text).find((_, i) => tags.indexOf(tags[i]!) !== i);
    if (repeated !== undefined) {
      throw new ApiError("validation_failed", { field: `${pointer}/${repeated}`, detail: "A language appears twice (tags ignore case)." });
    }
    if (!tags.includes(template.default_locale.toLowerCase())) {
      throw new ApiError("validation_failed", { field: pointer, detail: `The text must include the default language \`${template.default_locale}\`.` });
    }
    if (!counted) return;
    Object.keys(text).forEach((tag, i) => {
      languages.add(tags[i]!);
      if (languages.size > MAX_LANGUAGES) overLimitAt ??= `${pointer}/${tag}`;
    });
  };
  checkText(template.welcome.title, "/welcome/title");
  checkText(template.welcome.body, "/welcome/body");
  const ownCompletion = !isDefaultCompletion(template.completion, template.default_locale);
  checkText(template.completion.title, "/completion/title", ownCompletion);
  checkText(template.completion.body, "/completion/body", ownCompletion);
  const seen = new Set<string>();
  template.steps.forEach((step, index) => {
    checkText(step.label, `/steps/${index}/label`);
    checkText(step.instruction, `/steps/${index}/instruction`);
    if (seen.has(step.id)) throw new ApiError("validation_failed", { field: `/steps/${index}/id`, detail: "Step ids must be unique." });
    seen.add(step.id);
    if (step.min_count > step.max_count) {
      throw new ApiError("validation_failed", { field: `/steps/${index}/min_count`, detail: "min_count cannot exceed max_count." });
    }
    if (step.required && step.min_count < 1) {
      throw new ApiError("validation_failed", { field: `/steps/${index}/min_count`, detail: "A required step needs at least one shot." });
    }
  });
  if (overLimitAt !== undefined) {
    throw new ApiError("too_many_languages", {
      field: overLimitAt,
      detail: `This template uses ${languages.size} languages; at most ${MAX_LANGUAGES}.`,
    });
  }
}
