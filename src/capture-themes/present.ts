import type { ThemeRow } from "../storage/rows.ts";

export function presentTheme(row: ThemeRow) {
  return {
    id: row.id,
    name: row.name,
    primary_color: row.primaryColor,
    locale: row.locale,
    has_logo: row.logoKey !== null,
    is_default: row.isDefault,
    archived_at: row.archivedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
