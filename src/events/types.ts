import { z } from "@hono/zod-openapi";

/** Events a webhook endpoint may subscribe to. The last two are reserved: accepted, never sent. */
export const SUBSCRIBABLE_EVENTS = [
  "proof.sealed",
  "proof.failed",
  "capture_session.completed",
  "capture_session.rejected",
  "capture_session.expired",
  "dossier.ready",
] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
export const SubscribableEventSchema = z.enum(SUBSCRIBABLE_EVENTS);

/** Events the service actually records and sends. */
export const EMITTED_EVENTS = ["proof.sealed", "proof.failed", "capture_session.completed", "capture_session.rejected"] as const;
export type EmittedEvent = (typeof EMITTED_EVENTS)[number];
