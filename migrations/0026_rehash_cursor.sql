-- Re-hash cursor per shard (ADR 0065): number claimed; body follows.
SELECT 1;
