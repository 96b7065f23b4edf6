import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";
import type { DeliveryStatus } from "./webhook-attempts.ts";
import type { DeliveryRow } from "./rows.ts";

export interface DeliveryFilters {
  endpointId?: string;
  status?: DeliveryStatus;
  event?: string;
}

/** One delivery of this organisation and mode, or null (another's is as absent as a missing one). */
export async function findOwnDelivery(db: Database, organizationId: string, mode: Mode, id: string): Promise<DeliveryRow | null> {
  const row = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.mode, mode)))
    .get();
  return row ?? null;
}

/** A keyset page (`limit + 1` rows, newest first) of the organisation's deliveries in this mode. */
export async function listDeliveries(
  db: Database,
  organizationId: string,
  mode: Mode,
  filters: DeliveryFilters,
  limit: number,
  after: Keyset | undefined,
): Promise<DeliveryRow[]> {
  const page = keysetPage({ createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id }, after);
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.organizationId, organizationId),
        eq(webhookDeliveries.mode, mode),
        filters.endpointId ? eq(webhookDeliveries.endpointId, filters.endpointId) : undefined,
        filters.status ? eq(webhookDeliveries.status, filters.status) : undefined,
        filters.event ? eq(webhookDeliveries.event, filters.event) : undefined,
        page.where,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(limit + 1)
    .all();
}

/** A delivery's attempts, first first. */
export async function attemptsOf(db: Database, deliveryId: string) {
  return db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.attempt)).all();
}
