import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { TemplateSnapshot } from "../../capture-templates/snapshot.ts";

/**
 * A template as capture sessions were created from it, stored once per content (migration 0011): keyed
 * by the SHA-256 of its canonical JSON, which sessions and proofs carry as `template_sha256`. Written as that
 * canonical JSON (src/storage/capture-sessions.ts), read back parsed.
 */
export const templateSnapshots = sqliteTable("template_snapshots", {
  sha256: text("sha256").primaryKey(),
  content: text("content", { mode: "json" }).$type<TemplateSnapshot>().notNull(),
  createdAt: text("created_at").notNull(),
});
