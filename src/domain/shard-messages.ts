import type { Env } from "../env.ts";
import { shardBinding, shardOfId, type ShardCode } from "../db/shards.ts";
import { workerContext, type WorkerContext } from "./context.ts";

/** Consumer of one shard's messages of a queue batch; it acks or retries each message itself. */
export type ShardConsumer = (messages: readonly Message<unknown>[], worker: WorkerContext) => Promise<void>;

/** The shard a message's work lives in, read from its body; null when the body names none. */
export type ShardOfMessage = (body: unknown) => ShardCode | null;

/** For messages carrying an id in `field` (`proof_id`, `delivery_id`): the shard that id names. */
export const shardOfIdIn =
  (field: string): ShardOfMessage =>
  (body) => {
    const id = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[field] : undefined;
    return typeof id === "string" ? shardOfId(id) : null;
  };

/**
 * A queue batch may mix shards (docs/adr/0062): its messages are grouped by the shard their body names, and
 * each group is consumed on that shard's context, the groups concurrently. A message naming a shard this
 * deployment does not have, or none, was never sent by it: acknowledged and logged, never retried for ever.
 * One group failing leaves the others to finish before the batch fails (its unacknowledged messages are retried).
 */
export async function consumeByShard(
  queue: string,
  messages: readonly Message<unknown>[],
  env: Env,
  shardOf: ShardOfMessage,
  consume: ShardConsumer,
): Promise<void> {
  const groups = new Map<ShardCode, Message<unknown>[]>();
  for (const message of messages) {
    const shard = shardOf(message.body);
    if (shard === null || shardBinding(env, shard) === undefined) {
      console.error(JSON.stringify({ level: "error", queue, shard, message_id: message.id, message: "message names no shard of this deployment: dropped" }));
      message.ack();
      continue;
    }
    groups.set(shard, [...(groups.get(shard) ?? []), message]);
  }
  const outcomes = await Promise.allSettled([...groups].map(([shard, group]) => consume(group, workerContext(env, shard))));
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}
