import type { Env } from "../../env.ts";
import { sealerConfigured, sealerFetch } from "../../sealing/sealer-client.ts";
import type { HealthCheck } from "./schema.ts";

async function timed(check: () => Promise<void>): Promise<HealthCheck> {
  const started = performance.now();
  try {
    await check();
    return { status: "ok", latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { status: "error", latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  }
}

export function checkDatabase(env: Env): Promise<HealthCheck> {
  return timed(async () => {
    await env.DB.prepare("SELECT 1").first();
  });
}

export function checkStorage(env: Env): Promise<HealthCheck> {
  return timed(async () => {
    await env.FILES.head("health/probe");
  });
}

/**
 * The sealer checks its configured authority with a real request, cached a few minutes (the local process,
 * or a container in production, which may need a few seconds to start); without a sealer nothing is
 * configured. The sealer answers this check to its bearer secret only.
 */
export async function checkTimestampAuthority(env: Env): Promise<HealthCheck> {
  if (!sealerConfigured(env)) return { status: "not_configured" };
  return timed(async () => {
    const response = await sealerFetch(env, "/health/tsa", "health", { headers: { Authorization: `Bearer ${env.SEALER_SECRET ?? ""}` }, signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as { status?: string };
    if (!response.ok || body.status !== "ok") throw new Error("timestamp authority check failed");
  });
}
