import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns.ts";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Live proofs this organization can still pay for; one proof costs one unit. */
  balance: integer("balance").notNull().default(0),
  /** Origins the capture page may redirect to (`PATCH /v1/settings`). */
  allowedReturnOrigins: text("allowed_return_origins", { mode: "json" }).$type<string[]>().notNull().default([]),
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
