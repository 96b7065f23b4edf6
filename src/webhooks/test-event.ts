import type { DomainContext } from "../domain/context.ts";
import { newId } from "../lib/ids.ts";
import { newShardedId, shardOfId } from "../db/shards.ts";
import { eventDefinition, type EmittedEvent } from "../events/types.ts";
import { insertDeliveries } from "../storage/webhook-publishing.ts";
import type { EndpointRow } from "../storage/rows.ts";
import { deliveryBody } from "./delivery-body.ts";
import { deliveryMessage } from "./attempt.ts";

/** The body of a test event: the catalogue's sample of that event (its real fields, sample values), then `"test": true`. */
export function testEventBody(event: EmittedEvent, now: Date): string {
  const definition = eventDefinition(event);
  return deliveryBody(event, definition.fields.parse(definition.sample(now.toISOString())), true);
}

/** Sends a sample event, signed like any delivery and recorded in the delivery log. */
export async function sendTestEvent({ ctx, input }: { ctx: Pick<DomainContext, "env" | "db" | "now">; input: { endpoint: EndpointRow; event: EmittedEvent } }) {
  const { env, db, now } = ctx;
  const { endpoint, event } = input;
  const id = newShardedId("wdl", shardOfId(endpoint.organizationId));
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
