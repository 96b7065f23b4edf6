import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { modeColumn, timestamps } from "./columns.ts";
import type { SubscribableEvent } from "../../events/types.ts";

export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id").notNull(),
  mode: modeColumn(),
  url: text("url").notNull(),
  description: text("description"),
  events: text("events", { mode: "json" }).$type<SubscribableEvent[]>().notNull(),
  status: text("status", { enum: ["active", "disabled"] }).notNull(),
  ...timestamps,
});

export const webhookSecrets = sqliteTable("webhook_secrets", {
  id: text("id").primaryKey(),
  endpointId: text("endpoint_id").notNull(),
  ciphertext: text("ciphertext").notNull(),
  iv: text("iv").notNull(),
  hint: text("hint").notNull(),
  expiresAt: text("expires_at"),
  createdAt: text("created_at").notNull(),
});

export const webhookDeliveries = sqliteTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id").notNull(),
  mode: modeColumn(),
  endpointId: text("endpoint_id").notNull(),
  eventId: text("event_id").notNull(),
  event: text("event").notNull(),
  sessionId: text("session_id"),
  status: text("status", { enum: ["pending", "succeeded", "retrying", "abandoned"] }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: text("next_attempt_at"),
  requestBody: text("request_body").notNull(),
  responseStatus: integer("response_status"),
  responseBodyStart: text("response_body_start"),
  failureReason: text("failure_reason"),
  /** When the retention sweep emptied request_body and response_body_start (migration 0011). */
  bodyDeletedAt: text("body_deleted_at"),
  ...timestamps,
});

export const webhookAttempts = sqliteTable("webhook_attempts", {
  id: text("id").primaryKey(),
  deliveryId: text("delivery_id").notNull(),
  attempt: integer("attempt").notNull(),
  webhookId: text("webhook_id").notNull(),
  startedAt: text("started_at").notNull(),
  durationMs: integer("duration_ms").notNull(),
  responseStatus: integer("response_status"),
  responseBodyStart: text("response_body_start"),
  failureReason: text("failure_reason"),
  /** Started before the request leaves, completed after its answer; interrupted when its Worker died (ADR 0050). */
  state: text("state", { enum: ["started", "completed", "interrupted"] })
    .notNull()
    .default("completed"),
});
