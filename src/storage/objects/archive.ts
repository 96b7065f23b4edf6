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

/**
 * An archive object that cannot be read, said once per read on the error log for an alert to watch (forger session
 * 5, F7): the sweep commits a chunk's D1 row only after writing its object, so a missing or unreadable one was
 * deleted or damaged in storage. The lists go on without its rows rather than fail for every page reaching it.
 */
function reportUnreadable(key: string, fault: "missing" | "unreadable"): void {
  console.error(JSON.stringify({ level: "error", alert: "archive_object_unreadable", key, fault }));
}

/** The object's JSON, or null (reported) when it is not JSON. */
async function readJson(object: R2ObjectBody, key: string): Promise<unknown> {
  try {
    return await object.json();
  } catch {
    reportUnreadable(key, "unreadable");
    return null;
  }
}

/**
 * A chunk's rows, listed by its D1 row: when its object is missing or not a list of rows, none (reported as
 * `archive_object_unreadable`), so that the organization's lists still answer with every other row.
 */
export async function readArchiveChunk<Kind extends ArchiveKind>(store: ObjectStore, key: string): Promise<ArchivedRow<Kind>[]> {
  const object = await bucket(store).get(key);
  if (object === null) {
    reportUnreadable(key, "missing");
    return [];
  }
  const rows = await readJson(object, key);
  if (rows === null) return [];
  if (!Array.isArray(rows)) {
    reportUnreadable(key, "unreadable");
    return [];
  }
  return rows as ArchivedRow<Kind>[];
}

export async function putArchivedDelivery(store: ObjectStore, archived: ArchivedDelivery): Promise<void> {
  const { delivery } = archived;
  await bucket(store).put(archivedDeliveryKey(delivery.organizationId, delivery.mode, delivery.id), JSON.stringify(archived), {
    httpMetadata: { contentType: "application/json" },
  });
}

/** A delivery archived on its own; null when none is (an id never archived), or (reported) when its object is not JSON. */
export async function readArchivedDelivery(store: ObjectStore, organizationId: string, mode: Mode, deliveryId: string): Promise<ArchivedDelivery | null> {
  const key = archivedDeliveryKey(organizationId, mode, deliveryId);
  const object = await bucket(store).get(key);
  return object === null ? null : ((await readJson(object, key)) as ArchivedDelivery | null);
}
