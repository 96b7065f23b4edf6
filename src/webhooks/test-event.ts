import type { Env } from "../env.ts";
import type { Database } from "../db/client.ts";
import { newId } from "../lib/ids.ts";
import { eventDefinition, type EmittedEvent } from "../events/types.ts";
import { insertDeliveries } from "../storage/webhook-publishing.ts";
import type { EndpointRow } from "../storage/webhooks.ts";
import { deliveryBody } from "./delivery-body.ts";
import { deliveryMessage } from "./delivery-message.ts";

/** The body of a test event: the catalogue's sample of that event (its real fields, sample values), then `"test": true`. */
export function testEventBody(event: EmittedEvent, now: Date): string {
  const definition = eventDefinition(event);
  return deliveryBody(event, definition.fields.parse(definition.sample(now.toISOString())), true);
}

/** Sends a sample event, signed like any delivery and recorded in the delivery log. */
export async function sendTestEvent(env: Env, db: Database, endpoint: EndpointRow, event: EmittedEvent, now: Date) {
  const id = newId("wdl");
  const eventId = newId("evt");
  await insertDeliveries(db, [
    {
      id,
      organizationId: endpoint.organizationId,
      mode: endpoint.mode,
      endpointId: endpoint.id,
      eventId,
      event,
      sessionId: null,
      status: "pending",
      requestBody: testEventBody(event, now),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    },
  ]);
  await env.WEBHOOK_QUEUE.send(deliveryMessage(id));
  return { delivery_id: id, event_id: eventId, event };
}
