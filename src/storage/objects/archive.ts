import type { Mode } from "../../auth/mode.ts";
import type { AttemptRow, DeliveryRow, EventRow } from "../rows.ts";
import { bucket, type ObjectStore } from "./bucket.ts";

/**
 * The archive of events and webhook deliveries older than 30 days (docs/adr/0067): immutable objects
 * written by the archive sweep before it deletes the rows from D1. Rows are kept as the storage layer reads
 * them from D1, so the routes present an archived row exactly as they presented it before.
 */
export type ArchiveKind = "events" | "deliveries";

/** A chunk's rows, newest first: events whole, deliveries as listed (their bodies were emptied at 30 days). */
export type ArchivedRow<Kind extends ArchiveKind> = Kind extends "events" ? EventRow : DeliveryRow;

/** A delivery read on its own, with every attempt, first first. */
export interface ArchivedDelivery {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}

const prefix = (organizationId: string, mode: Mode) => `archive/${organizationId}/${mode}`;

/**
 * A chunk, named by its day, its oldest and newest rows and how many it holds: a sweep that died after writing
 * it writes the same key again, and two concurrent sweeps write one key only for the same rows (a day's due
 * rows only grow until archived), so a committed chunk's object is never replaced by other rows.
 */
export const archiveChunkKey = (
  organizationId: string,
  mode: Mode,
  kind: ArchiveKind,
  chunk: { oldest: { createdAt: string; id: string }; newest: { id: string }; count: number },
) => `${prefix(organizationId, mode)}/${kind}/${chunk.oldest.createdAt.slice(0, 10)}/${chunk.oldest.id}.${chunk.newest.id}.${chunk.count}.json`;

/** One delivery, found by its id under its organization and mode: another organization's key never names it. */
export const archivedDeliveryKey = (organizationId: string, mode: Mode, deliveryId: string) =>
  `${prefix(organizationId, mode)}/deliveries/by-id/${deliveryId}.json`;

export async function putArchiveChunk<Kind extends ArchiveKind>(store: ObjectStore, key: string, rows: ArchivedRow<Kind>[]): Promise<void> {
  await bucket(store).put(key, JSON.stringify(rows), { httpMetadata: { contentType: "application/json" } });
}

/** A chunk's rows; an empty list when the object is missing (never, once its D1 row exists). */
export async function readArchiveChunk<Kind extends ArchiveKind>(store: ObjectStore, key: string): Promise<ArchivedRow<Kind>[]> {
  const object = await bucket(store).get(key);
  return object === null ? [] : ((await object.json()) as ArchivedRow<Kind>[]);
}

export async function putArchivedDelivery(store: ObjectStore, archived: ArchivedDelivery): Promise<void> {
  const { delivery } = archived;
  await bucket(store).put(archivedDeliveryKey(delivery.organizationId, delivery.mode, delivery.id), JSON.stringify(archived), {
    httpMetadata: { contentType: "application/json" },
  });
}

export async function readArchivedDelivery(store: ObjectStore, organizationId: string, mode: Mode, deliveryId: string): Promise<ArchivedDelivery | null> {
  const object = await bucket(store).get(archivedDeliveryKey(organizationId, mode, deliveryId));
  return object === null ? null : ((await object.json()) as ArchivedDelivery);
}
