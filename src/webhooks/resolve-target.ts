import type { Env } from "../env.ts";
import { isLoopbackHost } from "../lib/host-names.ts";

/**
 * Where a delivery really goes. In local development only (API on loopback), WEBHOOK_RESOLVE
 * (`hooks.example.com:9443=127.0.0.1:9999,…`) sends a matching host and port over plain HTTP to the
 * loopback address, like curl's --resolve; the URL rules themselves are unchanged.
 */
export function deliveryTarget(env: Env, url: string): { url: string; host: string | null } {
  if (!env.WEBHOOK_RESOLVE || !isLoopbackHost(new URL(env.API_BASE_URL).hostname)) return { url, host: null };
  const target = new URL(url);
  const hostPort = `${target.hostname}:${target.port || "443"}`;
  for (const rule of env.WEBHOOK_RESOLVE.split(",")) {
    const [from, to] = rule.split("=").map((part) => part.trim());
    if (from === hostPort && to && isLoopbackHost(to.split(":")[0] ?? "")) {
      return { url: `http://${to}${target.pathname}${target.search}`, host: target.host };
    }
  }
  return { url, host: null };
}
