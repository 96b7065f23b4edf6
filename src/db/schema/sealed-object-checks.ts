import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { proofs } from "./proofs.ts";

/** One object a sealed proof publishes and what its latest re-hash found (migration 0019, docs/adr/0037). */
export const sealedObjectChecks = sqliteTable(
  "sealed_object_checks",
  {
    objectKey: text("object_key").primaryKey(),
    proofId: text("proof_id")
      .notNull()
      .references(() => proofs.id),
    entry: text("entry").notNull(),
    fileId: text("file_id"),
    expectedSha256: text("expected_sha256"),
    size: integer("size"),
    lastCheckedAt: text("last_checked_at"),
    foundSha256: text("found_sha256"),
    matched: integer("matched", { mode: "boolean" }),
    mismatchSince: text("mismatch_since"),
  },
  (table) => [index("sealed_object_checks_due").on(table.lastCheckedAt, table.objectKey), index("sealed_object_checks_proof").on(table.proofId)],
);

/** Sealed proofs whose objects the re-hash sweep has still to list (migration 0019). */
export const sealedObjectEnrolments = sqliteTable("sealed_object_enrolments", {
  proofId: text("proof_id")
    .primaryKey()
    .references(() => proofs.id),
  sealedAt: text("sealed_at").notNull(),
});
