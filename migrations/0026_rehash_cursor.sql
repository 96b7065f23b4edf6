-- Re-hash cursor per shard (ADR 0066): number claimed; body follows.
SELECT 1;
