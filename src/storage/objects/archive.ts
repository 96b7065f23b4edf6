import { z } from "zod";
import type { Mode } from "../../auth/mode.ts";
import type { AttemptRow, DeliveryRow, EventRow } from "../rows.ts";
import { bucket, type ObjectStore } from "./bucket.ts";
import { ofStoredShape } from "./stored-shape.ts";

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

const mode = z.enum(["test", "live"]);
const nullableText = z.string().nullable();
const nullableInteger = z.number().int().nullable();

/** An archived row as D1 held it: an object of any other shape is not one the sweep wrote (unknown keys dropped). */
const eventRow = z.object({
  id: z.string(),
  organizationId: z.string(),
  mode,
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  dispatchedAt: nullableText,
}) satisfies z.ZodType<EventRow>;

const deliveryRow = z.object({
  id: z.string(),
  organizationId: z.string(),
  mode,
  endpointId: z.string(),
  eventId: z.string(),
  event: z.string(),
  sessionId: nullableText,
  status: z.enum(["pending", "succeeded", "retrying", "abandoned"]),
  attempts: z.number().int(),
  nextAttemptAt: nullableText,
  requestBody: z.string(),
  responseStatus: nullableInteger,
  responseBodyStart: nullableText,
  failureReason: nullableText,
  bodyDeletedAt: nullableText,
  createdAt: z.string(),
  updatedAt: z.string(),
}) satisfies z.ZodType<DeliveryRow>;

const attemptRow = z.object({
  id: z.string(),
  deliveryId: z.string(),
  attempt: z.number().int(),
  webhookId: z.string(),
  startedAt: z.string(),
  durationMs: z.number().int(),
  responseStatus: nullableInteger,
  responseBodyStart: nullableText,
  failureReason: nullableText,
  state: z.enum(["started", "completed", "interrupted"]),
}) satisfies z.ZodType<AttemptRow>;

/** What a chunk's key names (archiveChunkKey): its organization, mode and kind, its oldest and newest rows' ids and its count. */
const CHUNK_KEY = /^archive\/([^/]+)\/(test|live)\/(events|deliveries)\/\d{4}-\d{2}-\d{2}\/([^./]+)\.([^./]+)\.(\d+)\.json$/;

/**
 * The chunk's rows when they are the ones its key names (forger session 7, G9): rows of the sweep's shape, all of its
 * organization and mode, as many as it counts, newest first and oldest last; null otherwise. Rows rewritten in that
 * shape still pass: nothing in D1 binds their content.
 */
function chunkRows(key: string, value: unknown): (EventRow | DeliveryRow)[] | null {
  const named = CHUNK_KEY.exec(key);
  if (named === null) return null;
  const [, organizationId, keyMode, kind, oldestId, newestId, count] = named;
  const rows = ofStoredShape(z.array(kind === "events" ? eventRow : deliveryRow), value);
  if (rows === null) return null;
  const ofChunk = rows.every((row) => row.organizationId === organizationId && row.mode === keyMode);
  return ofChunk && rows.length === Number(count) && rows[0]?.id === newestId && rows.at(-1)?.id === oldestId ? rows : null;
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
  const value = await readJson(object, key);
  if (value === null) return [];
  const rows = chunkRows(key, value);
  if (rows === null) {
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

/**
 * A delivery is attempted at most six times (the first and the specification's five retries, retry-schedule.ts); the
 * bound, far above that, fails a longer list with one issue before its elements are checked (forger session 8, H4:
 * 200,000 failing attempts overflowed zod's stack).
 */
const ATTEMPTS_PER_DELIVERY = 1_000;
const archivedDelivery = z.object({ delivery: deliveryRow, attempts: z.array(attemptRow).max(ATTEMPTS_PER_DELIVERY) });

/**
 * A delivery archived on its own; null when none is (an id never archived), or (reported) when its object is not
 * this delivery of this organization and mode with its own attempts.
 */
export async function readArchivedDelivery(store: ObjectStore, organizationId: string, mode: Mode, deliveryId: string): Promise<ArchivedDelivery | null> {
  const key = archivedDeliveryKey(organizationId, mode, deliveryId);
  const object = await bucket(store).get(key);
  if (object === null) return null;
  const value = await readJson(object, key);
  if (value === null) return null;
  const archived = ofStoredShape(archivedDelivery, value);
  const its =
    archived !== null && archived.delivery.id === deliveryId && archived.delivery.organizationId === organizationId && archived.delivery.mode === mode;
  if (its && archived.attempts.every((attempt) => attempt.deliveryId === deliveryId)) return archived;
  reportUnreadable(key, "unreadable");
  return null;
}
