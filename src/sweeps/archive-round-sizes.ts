/**
 * How many rows a round of the archive sweep (docs/adr/0067) reads, apart from the sweep so that
 * scripts/measure-capacity.ts makes its chunks as the sweep does without the Workers' types.
 */

/** Events a round reads: one chunk object per organization, mode and day among them. */
export const EVENTS_PER_ROUND = 200;
/** Deliveries a round reads: an object each (read by id) and a chunk per organization, mode and day. */
export const DELIVERIES_PER_ROUND = 50;
