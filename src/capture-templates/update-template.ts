import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { findTemplate, updateEditableTemplate } from "../storage/capture-templates.ts";
import { validateTemplateContent } from "./validate-template.ts";
import { assertUsableTheme } from "./theme-reference.ts";
import { refusingTemplateConflict } from "./template-conflict.ts";
import { defaultCompletion, isDefaultCompletion, type LocalizedText, type TemplateStep } from "./snapshot.ts";

export interface TemplateChanges {
  name?: string;
  default_locale?: string;
  welcome?: { title: LocalizedText; body: LocalizedText | null };
  steps?: TemplateStep[];
  completion?: { title: LocalizedText; body: LocalizedText | null };
  theme_id?: string | null;
  stage?: string | null;
  category?: string | null;
  ask_location?: boolean;
}

/**
 * Applies a PATCH. In live mode a template from which sessions were created is frozen (sessions keep
 * their own copy, but integrators rely on a live id meaning one thing); test templates stay editable.
 */
const frozen = (id: string) =>
  new ApiError("template_frozen", {
    detail: `Capture sessions were created from this live template, so it can no longer change. Duplicate it (POST /v1/capture-templates/${id}/duplicate), edit the copy and use the copy's id.`,
  });

export async function updateCaptureTemplate({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "db" | "caller" | "now">;
  input: { id: string; changes: TemplateChanges };
}) {
  const { db, caller } = ctx;
  const { id, changes } = input;
  const now = ctx.now.toISOString();
  const current = await findTemplate(db, caller.organizationId, caller.mode, id);
  if (current === null) throw new ApiError("capture_template_not_found");
  if (current.archivedAt !== null) throw new ApiError("template_archived");
  if (current.mode === "live" && current.inUse) throw frozen(id);
  const defaultLocale = changes.default_locale ?? current.defaultLocale;
  // A template that never had completion texts of its own keeps the built-in thanks, keyed for its new default language.
  const builtInCompletion = isDefaultCompletion(current.completion, current.defaultLocale) ? defaultCompletion(defaultLocale) : current.completion;
  const merged = {
    default_locale: defaultLocale,
    welcome: changes.welcome ?? current.welcome,
    steps: changes.steps ?? current.steps,
    completion: changes.completion ?? builtInCompletion,
  };
  validateTemplateContent(merged);
  if (changes.theme_id !== undefined) await assertUsableTheme(db, caller.organizationId, changes.theme_id);
  const row = {
    name: changes.name ?? current.name,
    defaultLocale: merged.default_locale,
    welcome: merged.welcome,
    steps: merged.steps,
    completion: merged.completion,
    themeId: changes.theme_id === undefined ? current.themeId : changes.theme_id,
    stage: changes.stage === undefined ? current.stage : changes.stage,
    category: changes.category === undefined ? current.category : changes.category,
    askLocation: changes.ask_location ?? current.askLocation,
    updatedAt: now,
  };
  const match = { organizationId: current.organizationId, mode: current.mode, stage: row.stage, category: row.category };
  if (!(await refusingTemplateConflict(db, match, () => updateEditableTemplate(db, id, row)))) {
    // Archived, first used, or its new theme archived while this edit was being prepared: answer as if
    // that had happened before.
    const latest = await findTemplate(db, caller.organizationId, caller.mode, id);
    if (latest === null || latest.archivedAt !== null) throw new ApiError("template_archived");
    if (latest.mode === "live" && latest.inUse) throw frozen(id);
    throw new ApiError("validation_failed", { field: "/theme_id", detail: "No active capture theme with this id." });
  }
  return { ...current, ...row };
}
