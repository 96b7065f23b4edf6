import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn, timestamps } from "./columns.ts";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Live proofs this organization can still pay for; one proof costs one unit. */
  balance: integer("balance").notNull().default(0),
  ...timestamps,
});

export const balanceAdjustments = sqliteTable("balance_adjustments", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  amount: integer("amount").notNull(),
  reason: text("reason").notNull(),
  createdAt: text("created_at").notNull(),
});

/** The settings of one mode of an organization (`PATCH /v1/settings`, docs/adr/0029); no row: the defaults. */
export const modeSettings = sqliteTable(
  "mode_settings",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    mode: modeColumn(),
    /** Origins the capture page may redirect to, for sessions of this mode. */
    allowedReturnOrigins: text("allowed_return_origins", { mode: "json" }).$type<string[]>().notNull().default([]),
    ...timestamps,
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.mode] })],
);

/** The shards an organization writes new sessions to past its home shard (docs/adr/0070); read in its home shard. */
export const organizationWriteShards = sqliteTable(
  "organization_write_shards",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    shard: text("shard").notNull(),
    fromAt: text("from_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.shard] })],
);
