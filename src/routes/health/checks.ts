import type { Env } from "../../env.ts";
import { sealerConfigured, sealerFetch } from "../../sealing/sealer-client.ts";
import type { DatabaseCheck, HealthCheck } from "./schema.ts";
import { shardCodes, shardDatabase } from "../../db/shards.ts";
import { probeBucket } from "../../storage/objects/bucket.ts";
import { probeDatabase } from "../../storage/health.ts";

async function timed(check: () => Promise<void>): Promise<HealthCheck> {
  const started = performance.now();
  try {
    await check();
    return { status: "ok", latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { status: "error", latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  }
}

/**
 * Every D1 shard probed at once (an organization's requests need its shard alone, so each is named), and
 * the database check as a whole: an error when any shard fails, as long as the slowest took.
 */
export async function checkDatabase(env: Env): Promise<DatabaseCheck> {
  const codes = shardCodes(env);
  const checks = await Promise.all(codes.map((shard) => timed(() => probeDatabase(shardDatabase(env, shard).$client))));
  const shards = Object.fromEntries(codes.map((shard, index) => [shard, checks[index]!]));
  return {
    status: checks.some((check) => check.status === "error") ? "error" : "ok",
    latency_ms: Math.max(...checks.map((check) => check.latency_ms ?? 0)),
    shards,
  };
}

export function checkStorage(env: Env): Promise<HealthCheck> {
  return timed(async () => {
    await probeBucket(env);
  });
}

/** How long an authority check answers for: a monitor polling every 30 s must not buy a timestamp each time. */
export const AUTHORITY_CHECK_TTL_SECONDS = { ok: 300, error: 60 } as const;
/** The Cache API key of the last check, per sealer (the local process, or the containers in production). */
export const authorityCheckCacheKey = (env: Env) => `https://health.invalid/timestamp-authority/${encodeURIComponent(env.SEALER_URL ?? "container")}`;
/** Always the same container: checking never wakes more than that one (proofs go to the others too). */
const HEALTH_SEALER_KEY = "health";

/**
 * The sealer checks its configured authority with a real request (the local process, or a container in
 * production, which may need a few seconds to start); without a sealer nothing is configured. The sealer
 * answers this check to its bearer secret only. The result is kept 5 minutes (1 after a failure) in the
 * Cache API.
 */
export async function checkTimestampAuthority(env: Env): Promise<HealthCheck> {
  const cache = caches.default;
  if (!sealerConfigured(env)) return { status: "not_configured" };
  const key = authorityCheckCacheKey(env);
  const cached = await cache.match(key);
  if (cached !== undefined) return (await cached.json()) as HealthCheck;
  const result = await askSealer(env);
  const ttl = result.status === "ok" ? AUTHORITY_CHECK_TTL_SECONDS.ok : AUTHORITY_CHECK_TTL_SECONDS.error;
  await cache.put(key, Response.json(result, { headers: { "Cache-Control": `max-age=${ttl}` } }));
  return result;
}

function askSealer(env: Env): Promise<HealthCheck> {
  return timed(async () => {
    const response = await sealerFetch(env, "/health/tsa", HEALTH_SEALER_KEY, {
      headers: { Authorization: `Bearer ${env.SEALER_SECRET ?? ""}` },
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { status?: string };
    if (!response.ok || body.status !== "ok") throw new Error("timestamp authority check failed");
  });
}
