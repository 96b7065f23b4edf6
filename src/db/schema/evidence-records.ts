import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn } from "./columns.ts";
import { proofs } from "./proofs.ts";

/** A sealed proof's RFC 4998 evidence record and when it is next due (migration 0015, docs/adr/0022). */
export const evidenceRecords = sqliteTable("evidence_records", {
  proofId: text("proof_id")
    .primaryKey()
    .references(() => proofs.id),
  mode: modeColumn(),
  recordKey: text("record_key"),
  archiveTimestamps: integer("archive_timestamps").notNull().default(0),
  hashAlgorithm: text("hash_algorithm"),
  renewedAt: text("renewed_at"),
  authorityExpiresAt: text("authority_expires_at"),
  dueAt: text("due_at").notNull(),
  claimedUntil: text("claimed_until"),
  claim: text("claim"),
});
