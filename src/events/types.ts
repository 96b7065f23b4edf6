import { z } from "@hono/zod-openapi";
import { EVENT_CATALOGUE, RESERVED_EVENTS } from "./catalogue.ts";
import type { EventDefinition } from "./define.ts";

/** Events the service actually records and sends: those of the catalogue. */
export type EmittedEvent = (typeof EVENT_CATALOGUE)[number]["type"];
export const EMITTED_EVENTS = EVENT_CATALOGUE.map((definition) => definition.type) as [EmittedEvent, ...EmittedEvent[]];

/** Events a webhook endpoint may subscribe to: the catalogue's, then the reserved ones (accepted, never sent). */
export type SubscribableEvent = EmittedEvent | (typeof RESERVED_EVENTS)[number];
export const SUBSCRIBABLE_EVENTS = [...EMITTED_EVENTS, ...RESERVED_EVENTS] as [SubscribableEvent, ...SubscribableEvent[]];
export const SubscribableEventSchema = z.enum(SUBSCRIBABLE_EVENTS);

/** The catalogue's entry of an event the service sends. */
export function eventDefinition(type: EmittedEvent): EventDefinition {
  const definition = EVENT_CATALOGUE.find((candidate) => candidate.type === type);
  if (definition === undefined) throw new Error(`${type} is not in the event catalogue`);
  return definition as EventDefinition;
}
