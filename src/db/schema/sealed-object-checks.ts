import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { proofs } from "./proofs.ts";

/**
 * An object of a sealed proof whose latest re-hash did not match (altered or missing), kept until it matches again;
 * or, for a proof sealed before migration 0026, the expected hash of an artifact that only this row holds
 * (migrations 0019 and 0026, docs/adr/0037 and 0066).
 */
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
  (table) => [index("sealed_object_checks_proof").on(table.proofId)],
);

/**
 * The shard's one re-hash cursor (migration 0026, docs/adr/0066): the sweep walks the sealed proofs in the order their
 * sealing committed (`proofs.rehash_seq`, set by a trigger), and a proof's last re-hash is derived from its place.
 */
export const rehashCursor = sqliteTable("rehash_cursor", {
  id: integer("id").primaryKey(),
  roundStartedAt: text("round_started_at"),
  position: integer("position").notNull().default(0),
  objectOffset: integer("object_offset").notNull().default(0),
  previousRoundStartedAt: text("previous_round_started_at"),
  previousRoundCompletedAt: text("previous_round_completed_at"),
  previousRoundEnd: integer("previous_round_end").notNull().default(0),
  artifactHashesFrom: integer("artifact_hashes_from").notNull(),
});
