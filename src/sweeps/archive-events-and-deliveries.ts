import type { WorkerContext } from "../domain/context.ts";
import { RETENTION_DAYS, retentionCutoff } from "../retention.ts";
import { archiveEvents } from "../storage/events.ts";
import { archiveDeliveries } from "../storage/webhook-deliveries.ts";
import { DELIVERIES_PER_ROUND, EVENTS_PER_ROUND } from "./archive-round-sizes.ts";

/**
 * R2 writes a run makes for each kind, and rounds a run makes for each kind (the shard's round shares one
 * invocation with the other sweeps): a chunk written costs 2 or 3 D1 statements and a round 1 or 2 reads,
 * so the archive's share stays under 400 of the invocation's 1,000 queries, and a backlog of one kind never
 * starves the other.
 */
export const ARCHIVE_WRITES_PER_KIND = 100;
const ROUNDS_PER_KIND = 10;

/**
 * Moves the shard's events and finished webhook deliveries to the R2 archive once the UTC day they were
 * created in is more than `RETENTION_DAYS.eventsInD1` days old (docs/adr/0067): a whole day at a time, so
 * that an organization's day makes one chunk, not one a minute. The routes read them there with the same
 * JSON. Returns how many of each moved.
 */
export async function archiveEventsAndDeliveries({ db, env }: WorkerContext, now: Date): Promise<{ events: number; deliveries: number }> {
  const before = `${retentionCutoff(now, RETENTION_DAYS.eventsInD1).slice(0, 10)}T00:00:00.000Z`;
  const moved = { events: 0, deliveries: 0 };
  for (const [kind, archive, perRound] of [
    ["events", archiveEvents, EVENTS_PER_ROUND],
    ["deliveries", archiveDeliveries, DELIVERIES_PER_ROUND],
  ] as const) {
    let writes = 0;
    for (let round = 0; round < ROUNDS_PER_KIND && writes < ARCHIVE_WRITES_PER_KIND; round++) {
      const done = await archive(db, env, before, perRound, ARCHIVE_WRITES_PER_KIND - writes);
      moved[kind] += done.moved;
      writes += done.writes;
      // Less than a round's worth: nothing more is due, or rows changed meanwhile and the next run takes them.
      if (done.moved < perRound) break;
    }
  }
  return moved;
}
