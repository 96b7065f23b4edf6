import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A root some sealed proof chained to (migration 0014), published with its fingerprint for verifiers to pin. */
export const trustAnchors = sqliteTable("trust_anchors", {
  sha256: text("sha256").primaryKey(),
  kind: text("kind", { enum: ["timestamp_authority", "c2pa"] }).notNull(),
  mode: text("mode", { enum: ["test", "live"] }).notNull(),
  subject: text("subject").notNull(),
  pem: text("pem").notNull(),
  firstSealedAt: text("first_sealed_at").notNull(),
  lastSealedAt: text("last_sealed_at").notNull(),
});
