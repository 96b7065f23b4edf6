import type { Database } from "../db/client.ts";
import type { Mode } from "../auth/mode.ts";
import { ApiError } from "../errors/api-error.ts";
import { findMatchingTemplate, findTemplate } from "../storage/capture-templates.ts";
import { BUILT_IN_TEMPLATE, type TemplateSnapshot } from "./snapshot.ts";
import { snapshotOf } from "./present.ts";

/**
 * The template a new session copies: the named one (same organization and mode, not archived), else the
 * active template matching `stage` and `category` most specifically, else the built-in default.
 */
export async function resolveTemplateForSession(
  db: Database,
  query: { organizationId: string; mode: Mode; templateId?: string; stage?: string | null; category?: string | null },
): Promise<TemplateSnapshot> {
  if (query.templateId !== undefined) {
    const named = await findTemplate(db, query.organizationId, query.mode, query.templateId);
    if (named === null || named.archivedAt !== null) throw new ApiError("template_not_found", { field: "/template_id" });
    return snapshotOf(named);
  }
  const matching = await findMatchingTemplate(db, query.organizationId, query.mode, query.stage ?? null, query.category ?? null);
  return matching === null ? BUILT_IN_TEMPLATE : snapshotOf(matching);
}
