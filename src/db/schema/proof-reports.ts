import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { proofs } from "./proofs.ts";

/** A proof's PDF evidence report, or a pair's (kept with its after), made once (migration 0022, docs/adr/0044); found by its SHA-256 (migration 0025). */
export const proofReports = sqliteTable(
  "proof_reports",
  {
    proofId: text("proof_id")
      .notNull()
      .references(() => proofs.id),
    kind: text("kind", { enum: ["proof", "pair"] }).notNull(),
    objectKey: text("object_key").notNull(),
    sha256: text("sha256").notNull(),
    size: integer("size").notNull(),
    language: text("language").notNull(),
    madeAt: text("made_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.proofId, table.kind] }), index("proof_reports_sha256").on(table.sha256)],
);
