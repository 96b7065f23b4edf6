import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn, timestamps } from "./columns.ts";
import { organizations } from "./organizations.ts";
import type { DecodedFacts, PriorCredentials, Thumbnail } from "../../../shared/sealer-protocol.ts";
import type { StoredSignal } from "../../../shared/integrity-signals.ts";

/**
 * A thumbnail as a file's row or sealed record keeps it: where it is in R2, and the SHA-256 of the bytes the sealer
 * wrote there (sealer protocol 12; absent for thumbnails made before, whose bytes nothing binds).
 */
export type StoredThumbnail = Omit<Thumbnail, "sha256"> & { key: string; sha256?: string };

export const proofs = sqliteTable("proofs", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  mode: modeColumn(),
  status: text("status", { enum: ["pending", "sealed", "failed"] }).notNull(),
  sessionId: text("session_id").notNull().unique(),
  externalReference: text("external_reference").notNull(),
  party: text("party", { enum: ["provider", "recipient"] }).notNull(),
  stage: text("stage"),
  category: text("category"),
  locationReference: text("location_reference"),
  templateId: text("template_id"),
  templateSha256: text("template_sha256").notNull(),
  compareTo: text("compare_to").unique(),
  comparedBy: text("compared_by").unique(),
  holdsReservation: integer("holds_reservation").notNull().default(0),
  manifestSha256: text("manifest_sha256"),
  timestampGenTime: text("timestamp_gen_time"),
  timestampQualified: integer("timestamp_qualified", { mode: "boolean" }),
  timestampAuthority: text("timestamp_authority"),
  timestampSerial: text("timestamp_serial"),
  timestampPolicy: text("timestamp_policy"),
  failureCode: text("failure_code"),
  failureMessage: text("failure_message"),
  sealAttempts: integer("seal_attempts").notNull().default(0),
  /** The sealing run whose artifacts this proof publishes (migration 0006); null before runs existed. */
  sealingRun: text("sealing_run"),
  /** The certificate that signed the proof's manifest.p7s (migration 0017); null: sealed before the seal existed. */
  sealCertificateSha256: text("seal_certificate_sha256"),
  sealCertificateSubject: text("seal_certificate_subject"),
  /**
   * What the sealing run's record.json in R2 holds of the proof's files: 0 nothing (their rows in D1 hold all); 1 their
   * facts and capture context, their rows the rest (migration 0024); 2 the files whole, no row left (docs/adr/0065).
   */
  sealedRecord: integer("sealed_record").$type<0 | 1 | 2>().notNull().default(0),
  /** The SHA-256 of that record's bytes (migration 0028): a record read back must be the one sealing wrote. */
  sealedRecordSha256: text("sealed_record_sha256"),
  ...timestamps,
  sealedAt: text("sealed_at"),
  failedAt: text("failed_at"),
});

export const files = sqliteTable("files", {
  id: text("id").primaryKey(),
  sessionId: text("session_id").notNull(),
  proofId: text("proof_id"),
  stepId: text("step_id").notNull(),
  kind: text("kind", { enum: ["photo", "video"] }).notNull(),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  sha256: text("sha256").notNull(),
  status: text("status", { enum: ["declared", "uploaded", "deleted"] }).notNull(),
  captureContext: text("capture_context", { mode: "json" }).$type<Record<string, unknown> | null>(),
  originalKey: text("original_key").notNull(),
  multipartUploadId: text("multipart_upload_id"),
  uploadedParts: text("uploaded_parts", { mode: "json" }).$type<{ part_number: number; etag: string }[] | null>(),
  signedKey: text("signed_key"),
  signedSha256: text("signed_sha256"),
  signedSize: integer("signed_size"),
  sniffedType: text("sniffed_type"),
  priorC2pa: integer("prior_c2pa", { mode: "boolean" }),
  /** CRC-32 of the signed copy, recorded by the sealer (the package's ZIP needs it); null before migration 0012. */
  signedCrc32: integer("signed_crc32"),
  /** What the file's earlier Content Credentials claimed (migration 0013); null: none, or sealed before 0013. */
  priorCredentials: text("prior_credentials", { mode: "json" }).$type<PriorCredentials | null>(),
  /** Width, height and duration decoded by the sealer (migration 0013). */
  decoded: text("decoded", { mode: "json" }).$type<DecodedFacts | null>(),
  /** Integrity signals, each with its stable code (migration 0013); null for files sealed before it. */
  signals: text("signals", { mode: "json" }).$type<StoredSignal[] | null>(),
  /** The thumbnail the sealer made from the signed bytes and where it is in R2 (migration 0016); null: none. */
  thumbnail: text("thumbnail", { mode: "json" }).$type<StoredThumbnail | null>(),
  createdAt: text("created_at").notNull(),
  capturedAt: text("captured_at"),
});
