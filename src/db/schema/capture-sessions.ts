import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn, timestamps } from "./columns.ts";
import { organizations } from "./organizations.ts";

export const captureSessions = sqliteTable("capture_sessions", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  mode: modeColumn(),
  status: text("status", { enum: ["open", "completed", "expired", "rejected"] }).notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  externalReference: text("external_reference").notNull(),
  party: text("party", { enum: ["provider", "recipient"] }).notNull(),
  stage: text("stage"),
  category: text("category"),
  templateId: text("template_id"),
  /** The SHA-256 of the template snapshot this session was created with (its JSON: template_snapshots). */
  templateSha256: text("template_sha256").notNull(),
  locale: text("locale").notNull(),
  locationReference: text("location_reference"),
  returnUrl: text("return_url"),
  compareTo: text("compare_to"),
  holdsReservation: integer("holds_reservation").notNull().default(0),
  proofId: text("proof_id"),
  ...timestamps,
  expiresAt: text("expires_at").notNull(),
  completedAt: text("completed_at"),
  rejectedAt: text("rejected_at"),
});

/**
 * The attempt that created a session, inserted in the same batch (migration 0021, ADR 0046): what a retry of
 * its Idempotency-Key replays when the key's record never received the answer. Kept 24 hours.
 */
export const captureSessionCreations = sqliteTable("capture_session_creations", {
  keyHash: text("key_hash").primaryKey(),
  sessionId: text("session_id")
    .notNull()
    .references(() => captureSessions.id, { onDelete: "cascade" }),
  requestHash: text("request_hash").notNull(),
  sealedToken: text("sealed_token").notNull(),
  createdAt: text("created_at").notNull(),
});
