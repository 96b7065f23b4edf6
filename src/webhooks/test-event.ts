import type { Env } from "../env.ts";
import type { Database } from "../db/client.ts";
import { webhookDeliveries } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import type { EndpointRow } from "../storage/webhooks.ts";
import { deliveryBody } from "./delivery-body.ts";
import type { DeliveryMessage } from "./delivery-message.ts";

/** Sample bodies with the real fields of each event (CONTRACT.md) and sample values. */
function sampleData(event: string, now: string): Record<string, unknown> {
  const common = { session_id: "cps_sample000000000000", external_reference: "sample-reference", party: "provider", stage: "checkin" };
  switch (event) {
    case "capture_session.completed":
      return { session_id: common.session_id, proof_id: "prf_sample000000000000", external_reference: common.external_reference, party: common.party, stage: common.stage, completed_at: now };
    case "capture_session.rejected":
      return { session_id: common.session_id, code: "compare_to_already_used", compare_to: "prf_before00000000000", external_reference: common.external_reference, party: common.party, stage: common.stage, rejected_at: now };
    case "proof.failed":
      return { proof_id: "prf_sample000000000000", ...common, code: "file_hash_mismatch", message: "Sample failure.", failed_at: now };
    default:
      return {
        proof_id: "prf_sample000000000000",
        ...common,
        compare_to: null,
        manifest_sha256: "0".repeat(64),
        timestamp: { gen_time: now, qualified: false },
        sealed_at: now,
      };
  }
}

/** Sends a sample event, signed like any delivery and recorded in the delivery log. */
export async function sendTestEvent(env: Env, db: Database, endpoint: EndpointRow, event: string, now: Date) {
  const id = newId("wdl");
  const eventId = newId("evt");
  await db.insert(webhookDeliveries).values({
    id,
    organizationId: endpoint.organizationId,
    mode: endpoint.mode,
    endpointId: endpoint.id,
    eventId,
    event,
    sessionId: null,
    status: "pending",
    requestBody: deliveryBody(event, sampleData(event, now.toISOString()), true),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  });
  await env.WEBHOOK_QUEUE.send({ delivery_id: id } satisfies DeliveryMessage);
  return { delivery_id: id, event_id: eventId, event };
}
