import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn } from "./columns.ts";
import { organizations } from "./organizations.ts";

export const events = sqliteTable("events", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  mode: modeColumn(),
  type: text("type").notNull(),
  data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  createdAt: text("created_at").notNull(),
  /** When the event was handed to webhook delivery; null events are swept up by the cron. */
  dispatchedAt: text("dispatched_at"),
});
