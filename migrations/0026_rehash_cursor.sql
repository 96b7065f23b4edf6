-- Re-hash cursor per shard (ADR 0064): number claimed; body follows.
SELECT 1;
