import type {
  apiKeys,
  balanceAdjustments,
  captureSessions,
  captureTemplates,
  captureThemes,
  events,
  files,
  organizations,
  proofs,
  templateSnapshots,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  webhookSecrets,
} from "../db/schema/index.ts";

/**
 * One row type per table, inferred from the drizzle schema and declared here only: the code outside
 * src/storage/ does not read the schema, so this is where it finds what a row holds.
 */
export type OrganizationRow = typeof organizations.$inferSelect;
export type BalanceAdjustmentRow = typeof balanceAdjustments.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type CaptureSessionRow = typeof captureSessions.$inferSelect;
export type TemplateSnapshotRow = typeof templateSnapshots.$inferSelect;
export type TemplateRow = typeof captureTemplates.$inferSelect;
export type ThemeRow = typeof captureThemes.$inferSelect;
export type ProofRow = typeof proofs.$inferSelect;
/** A capture file: declared by the phone, uploaded, then sealed with its proof. */
export type FileRow = typeof files.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type SecretRow = typeof webhookSecrets.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
