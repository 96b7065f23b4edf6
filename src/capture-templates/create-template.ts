import type { DomainContext } from "../domain/context.ts";
import { newId } from "../lib/ids.ts";
import { ApiError } from "../errors/api-error.ts";
import { insertTemplateWithActiveTheme } from "../storage/capture-templates.ts";
import { defaultCompletion, type LocalizedText, type TemplateStep } from "./snapshot.ts";
import { validateTemplateContent } from "./validate-template.ts";
import { assertUsableTheme } from "./theme-reference.ts";
import { refusingTemplateConflict } from "./template-conflict.ts";

export interface NewTemplate {
  name: string;
  default_locale: string;
  welcome: { title: LocalizedText; body: LocalizedText | null };
  steps: TemplateStep[];
  completion?: { title: LocalizedText; body: LocalizedText | null };
  theme_id: string | null;
  stage: string | null;
  category: string | null;
  ask_location: boolean;
}

/** Creates a template in the caller's mode (templates belong to one mode; themes are shared). */
export async function createCaptureTemplate({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: NewTemplate }) {
  const { db, caller } = ctx;
  const now = ctx.now.toISOString();
  const content = {
    default_locale: input.default_locale,
    welcome: input.welcome,
    steps: input.steps,
    completion: input.completion ?? defaultCompletion(input.default_locale),
  };
  validateTemplateContent(content);
  await assertUsableTheme(db, caller.organizationId, input.theme_id);
  const row = {
    id: newId("tpl"),
    organizationId: caller.organizationId,
    mode: caller.mode,
    name: input.name,
    defaultLocale: content.default_locale,
    welcome: content.welcome,
    steps: content.steps,
    completion: content.completion,
    themeId: input.theme_id,
    stage: input.stage,
    category: input.category,
    askLocation: input.ask_location,
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await refusingTemplateConflict(db, row, () => insertTemplateWithActiveTheme(db, row)))) {
    throw new ApiError("validation_failed", { field: "/theme_id", detail: "No active capture theme with this id." });
  }
  return { ...row, inUse: false };
}
