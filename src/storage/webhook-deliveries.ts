import { and, asc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";
import type { DeliveryStatus } from "./webhook-attempts.ts";
import type { AttemptRow, DeliveryRow } from "./rows.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { putArchivedDelivery, readArchivedDelivery } from "./objects/archive.ts";
import { type ArchiveTally, idsOf, moveToArchive, pageWithArchive } from "./archive-chunks.ts";

export interface DeliveryFilters {
  endpointId?: string;
  status?: DeliveryStatus;
  event?: string;
}

/** A delivery with its attempts, first first. */
export interface DeliveryWithAttempts {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}

/**
 * One delivery of this organisation and mode with its attempts, or null (another's is as absent as a missing
 * one): from D1, else from the archive it moved to after 30 days (docs/adr/0067), read under the caller's
 * organization and mode.
 */
export async function findOwnDelivery(db: Database, store: ObjectStore, organizationId: string, mode: Mode, id: string): Promise<DeliveryWithAttempts | null> {
  const [rows, attempts] = await db.batch([
    db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.mode, mode))),
    db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id)).orderBy(asc(webhookAttempts.attempt)),
  ]);
  const delivery = rows[0];
  if (delivery !== undefined) return { delivery, attempts };
  return readArchivedDelivery(store, organizationId, mode, id);
}

/** A keyset page (`limit + 1` rows, newest first) of the organisation's deliveries in this mode, D1's and the archive's. */
export async function listDeliveries(
  db: Database,
  store: ObjectStore,
  organizationId: string,
  mode: Mode,
  filters: DeliveryFilters,
  limit: number,
  after: Keyset | undefined,
): Promise<DeliveryRow[]> {
  const page = keysetPage({ createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id }, after);
  const live = await db
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
  const matches = (row: DeliveryRow) =>
    (!filters.endpointId || row.endpointId === filters.endpointId) &&
    (!filters.status || row.status === filters.status) &&
    (!filters.event || row.event === filters.event);
  const scope = { organizationId, mode, kind: "deliveries" as const };
  const filter = [filters.endpointId || undefined, filters.status || undefined, filters.event || undefined];
  return pageWithArchive(db.$client, store, scope, filter, matches, live, limit, after);
}

/**
 * Moves up to `limit` deliveries created before `before` whose bodies the retention sweep already emptied
 * (finished ones: succeeded or abandoned) to the archive, oldest first, with their attempts: each delivery
 * to an object of its own (read by id), each organization, mode and day's deliveries to a chunk (read by the
 * list), then in one batch the chunk's D1 row and the deletion of the deliveries and their attempts, which
 * take effect only if every delivery and attempt is still as written to R2. Returns the deliveries moved and
 * the R2 writes made, at most `maxWrites` (the deliveries of chunks left out wait for the next round).
 */
export async function archiveDeliveries(db: Database, store: ObjectStore, before: string, limit: number, maxWrites: number): Promise<ArchiveTally> {
  const due = await db
    .select()
    .from(webhookDeliveries)
    .where(and(isNotNull(webhookDeliveries.bodyDeletedAt), lt(webhookDeliveries.createdAt, before)))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
    .limit(limit)
    .all();
  if (due.length === 0) return { moved: 0, writes: 0 };
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, idsOf(due)))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt))
    .all();
  const attemptsOf = (deliveries: readonly DeliveryRow[]) => attempts.filter((attempt) => deliveries.some((row) => row.id === attempt.deliveryId));
  return moveToArchive(db.$client, store, due, maxWrites, {
    kind: "deliveries",
    filterOf: (row) => [row.endpointId, row.status, row.event],
    writesOf: (rows) => rows.length + 1,
    writeFirst: (rows) => Promise.all(rows.map((delivery) => putArchivedDelivery(store, { delivery, attempts: attemptsOf([delivery]) }))),
    stillThere: (rows) => {
      const asWritten = JSON.stringify(rows.map((row) => [row.id, row.updatedAt]));
      return sql`(SELECT COUNT(*) FROM webhook_deliveries d, json_each(${asWritten}) w
        WHERE d.id = json_extract(w.value, '$[0]') AND d.updated_at = json_extract(w.value, '$[1]') AND d.body_deleted_at IS NOT NULL) = ${rows.length}
      AND (SELECT COUNT(*) FROM webhook_attempts WHERE delivery_id IN ${idsOf(rows)}) = ${attemptsOf(rows).length}`;
    },
    deletes: (rows, committed) => [
      sql`DELETE FROM webhook_attempts WHERE delivery_id IN ${idsOf(rows)} AND ${committed}`,
      sql`DELETE FROM webhook_deliveries WHERE id IN ${idsOf(rows)} AND ${committed}`,
    ],
  });
}
