import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn, timestamps } from "./columns.ts";
import { organizations } from "./organizations.ts";
import type { LocalizedText, TemplateStep } from "../../capture-templates/snapshot.ts";

export const captureThemes = sqliteTable("capture_themes", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  name: text("name").notNull(),
  primaryColor: text("primary_color").notNull(),
  locale: text("locale").notNull(),
  logoKey: text("logo_key"),
  logoContentType: text("logo_content_type"),
  isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
  archivedAt: text("archived_at"),
  ...timestamps,
});

export const captureTemplates = sqliteTable("capture_templates", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  mode: modeColumn(),
  name: text("name").notNull(),
  defaultLocale: text("default_locale").notNull(),
  welcome: text("welcome", { mode: "json" }).$type<{ title: LocalizedText; body: LocalizedText | null }>().notNull(),
  steps: text("steps", { mode: "json" }).$type<TemplateStep[]>().notNull(),
  completion: text("completion", { mode: "json" }).$type<{ title: LocalizedText; body: LocalizedText | null }>().notNull(),
  themeId: text("theme_id"),
  stage: text("stage"),
  category: text("category"),
  askLocation: integer("ask_location", { mode: "boolean" }).notNull().default(false),
  archivedAt: text("archived_at"),
  /** When a session written outside the home shard first used it (migration 0030): read as "in use". */
  usedAt: text("used_at"),
  ...timestamps,
});
