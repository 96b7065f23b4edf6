import { text } from "drizzle-orm/sqlite-core";

/** ISO 8601 UTC timestamps with milliseconds, so that text order is time order (keyset pagination relies on it). */
export const timestamps = {
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
};

export const modeColumn = () => text("mode", { enum: ["test", "live"] }).notNull();
