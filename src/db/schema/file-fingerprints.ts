import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { proofs } from "./proofs.ts";
import { organizations } from "./organizations.ts";

/**
 * A sealed photo's perceptual fingerprints and the four 16-bit bands of its pHash, for the whole picture and for four
 * five crops of it (migrations 0020 and 0023, docs/adr/0052).
 */
export const fileFingerprints = sqliteTable(
  "file_fingerprints",
  {
    /** The sealed file (files.id), written with it in the sealing batch. */
    fileId: text("file_id").notNull(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    proofId: text("proof_id")
      .notNull()
      .references(() => proofs.id),
    stepId: text("step_id").notNull(),
    sealedAt: text("sealed_at").notNull(),
    phash: text("phash").notNull(),
    dhash: text("dhash").notNull(),
    band0: integer("band0").notNull(),
    band1: integer("band1").notNull(),
    band2: integer("band2").notNull(),
    band3: integer("band3").notNull(),
    /**
     * 0: the whole picture; 1 to 5: 95 % of it kept against the top-left, top-right, bottom-left, bottom-right corner, and centred.
     * A video's (docs/adr/0059): 0 its frame at 50 % of its duration, 1 and 2 those at 10 % and 90 %.
     */
    variant: integer("variant").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.fileId, table.variant] }),
    index("file_fingerprints_band0").on(table.organizationId, table.mode, table.band0),
    index("file_fingerprints_band1").on(table.organizationId, table.mode, table.band1),
    index("file_fingerprints_band2").on(table.organizationId, table.mode, table.band2),
    index("file_fingerprints_band3").on(table.organizationId, table.mode, table.band3),
  ],
);
