import type { EventOrigin } from "../../../src/events/define.ts";
import type { EventToRecord } from "../../../src/storage/events.ts";
import { eventDefinition, type EmittedEvent } from "../../../src/events/types.ts";

/**
 * An event of the catalogue as its builder makes it, with the catalogue's sample body and some fields
 * replaced: for tests of recording and delivery that need a real body but care about a few fields.
 */
export function sampleEvent(origin: EventOrigin, type: EmittedEvent, fields: Record<string, unknown> = {}): EventToRecord {
  const definition = eventDefinition(type);
  return definition.build(origin, { ...definition.sample(origin.createdAt), ...fields }) as EventToRecord;
}
