import type { TemplateRow } from "../storage/rows.ts";
import type { TemplateSnapshot } from "./snapshot.ts";

/** `usedAt` is answered as `in_use` (the caller reads it), not as a field of its own. */
export function presentTemplate(row: Omit<TemplateRow, "usedAt"> & { inUse: boolean }) {
  return {
    id: row.id,
    mode: row.mode,
    name: row.name,
    default_locale: row.defaultLocale,
    welcome: row.welcome,
    steps: row.steps,
    completion: row.completion,
    theme_id: row.themeId,
    stage: row.stage,
    category: row.category,
    ask_location: row.askLocation,
    in_use: row.inUse,
    archived_at: row.archivedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function snapshotOf(row: TemplateRow): TemplateSnapshot {
  return {
    id: row.id,
    name: row.name,
    default_locale: row.defaultLocale,
    welcome: row.welcome,
    steps: row.steps,
    completion: row.completion,
    theme_id: row.themeId,
    ask_location: row.askLocation,
    stage: row.stage,
    category: row.category,
  };
}
