import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A certificate some proof's manifest.p7s was signed with (migration 0017), published beside the roots. */
export const sealCertificates = sqliteTable("seal_certificates", {
  sha256: text("sha256").primaryKey(),
  mode: text("mode", { enum: ["test", "live"] }).notNull(),
  subject: text("subject").notNull(),
  issuer: text("issuer").notNull(),
  serial: text("serial").notNull(),
  notBefore: text("not_before").notNull(),
  notAfter: text("not_after").notNull(),
  pem: text("pem").notNull(),
  firstSealedAt: text("first_sealed_at").notNull(),
  lastSealedAt: text("last_sealed_at").notNull(),
});
