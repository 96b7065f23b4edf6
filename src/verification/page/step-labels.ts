import type { TemplateSnapshot } from "../../capture-templates/snapshot.ts";
import { resolveText } from "../../i18n/resolve-locale.ts";

export interface PageStep {
  id: string;
  label: string;
}

/**
 * The steps of the template a capture was made with, labelled in the page's language (the template's own
 * fallback order), in the template's order. A step that has files but is not in the snapshot keeps its id.
 */
export function pageSteps(snapshot: Partial<TemplateSnapshot> | null, lang: string, stepIdsWithFiles: string[]): PageStep[] {
  const steps = (snapshot?.steps ?? []).map((step) => ({ id: step.id, label: resolveText(step.label, lang, snapshot?.default_locale ?? "en") || step.id }));
  const known = new Set(steps.map((step) => step.id));
  for (const id of stepIdsWithFiles) {
    if (!known.has(id)) {
      steps.push({ id, label: id });
      known.add(id);
    }
  }
  return steps.filter((step) => stepIdsWithFiles.includes(step.id));
}
