/**
 * Splitting work to fit the platform's per-call limits (developers.cloudflare.com/d1/platform/limits,
 * /queues/platform/limits): local SQLite and miniflare accept far more, production refuses the call.
 */

/** D1 refuses a statement with more bound parameters than this. */
export const D1_MAX_BOUND_PARAMETERS = 100;
/** Queues: at most this many messages, and this many bytes in all, per `sendBatch`. */
export const QUEUE_MAX_MESSAGES_PER_BATCH = 100;
export const QUEUE_MAX_BATCH_BYTES = 256_000;
/** Each message counts about this much internal metadata towards the limits. */
const QUEUE_METADATA_BYTES = 100;

/** `items` in consecutive slices of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Rows per multi-row INSERT so that `columns` bound values per row stay within D1's parameter limit. */
export const rowsPerInsert = (columns: number) => Math.max(1, Math.floor(D1_MAX_BOUND_PARAMETERS / columns));

/** Message bodies grouped into `sendBatch` calls Queues accepts (count and total size). */
export function queueBatches<T>(bodies: readonly T[]): T[][] {
  const encoder = new TextEncoder();
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = encoder.encode(JSON.stringify(body)).length + QUEUE_METADATA_BYTES;
    if (current.length > 0 && (current.length === QUEUE_MAX_MESSAGES_PER_BATCH || bytes + size > QUEUE_MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(body);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Sends every body through `queue`, in as many `sendBatch` calls as the limits require. */
export async function sendInBatches<T>(queue: Queue, bodies: readonly T[]): Promise<void> {
  for (const batch of queueBatches(bodies)) await queue.sendBatch(batch.map((body) => ({ body })));
}
