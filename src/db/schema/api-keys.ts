import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn } from "./columns.ts";
import { organizations } from "./organizations.ts";

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  mode: modeColumn(),
  name: text("name"),
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  keyHash: text("key_hash").notNull().unique(),
  /** First characters of the key, for display (`sk_test_ab12…`). */
  keyPrefix: text("key_prefix").notNull(),
  /** JSON array of rights. */
  rights: text("rights", { mode: "json" }).$type<string[]>().notNull(),
  rateLimitPerMinute: integer("rate_limit_per_minute").notNull().default(60),
  createdAt: text("created_at").notNull(),
  revokedAt: text("revoked_at"),
});
