import type { Env } from "../env.ts";
import { isPublicAddress } from "./public-address.ts";
import { boundedCache } from "../../shared/bounded-cache.ts";

/** Cloudflare's DNS-over-HTTPS JSON API; WEBHOOK_DNS_RESOLVER_URL names another with the same API. */
export const DEFAULT_DNS_RESOLVER_URL = "https://cloudflare-dns.com/dns-query";
/** An answer is trusted for its TTL, but never longer than this. */
const MAX_CACHE_SECONDS = 3600;
/** A name that does not exist is asked again after this long when its answer gives no TTL. */
const NEGATIVE_CACHE_SECONDS = 60;
const RESOLVER_TIMEOUT_MS = 5000;

const RECORD_A = 1;
const RECORD_AAAA = 28;

interface DnsJsonAnswer {
  Status: number;
  Answer?: { name: string; type: number; TTL: number; data: string }[];
  Authority?: { TTL: number }[];
}

/** Why a host may not receive deliveries, or null when it may. */
export type DestinationRefusal = string | null;

interface Verdict {
  refusal: DestinationRefusal;
  expiresAt: number;
}

/** Per isolate, 1,000 hosts at most (the oldest verdict goes first): a verdict lives as long as the DNS answer it came from (set below). */
const verdicts = boundedCache<string, DestinationRefusal>({ maxEntries: 1_000 });

class ResolverUnavailable extends Error {}

async function ask(resolverUrl: string, name: string, type: "A" | "AAAA"): Promise<DnsJsonAnswer> {
  const url = new URL(resolverUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(RESOLVER_TIMEOUT_MS) });
  } catch (error) {
    throw new ResolverUnavailable((error as Error).message);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ResolverUnavailable(`resolver answered HTTP ${response.status}`);
  }
  try {
    return (await response.json()) as DnsJsonAnswer;
  } catch {
    throw new ResolverUnavailable("resolver answer is not DNS JSON");
  }
}

async function resolve(resolverUrl: string, host: string, nowMs: number): Promise<Verdict> {
  const answers = await Promise.all([ask(resolverUrl, host, "A"), ask(resolverUrl, host, "AAAA")]);
  for (const answer of answers) {
    // NOERROR (0) and NXDOMAIN (3) are answers; SERVFAIL and the rest mean the resolver could not say.
    if (answer.Status !== 0 && answer.Status !== 3) throw new ResolverUnavailable(`resolver status ${answer.Status}`);
  }
  const records = answers.flatMap((answer) => answer.Answer ?? []);
  const addresses = records.filter((record) => record.type === RECORD_A || record.type === RECORD_AAAA);
  const ttls = [...records, ...answers.flatMap((answer) => answer.Authority ?? [])]
    .map((record) => record.TTL)
    .filter((ttl) => Number.isFinite(ttl) && ttl >= 0);
  const ttl = Math.min(MAX_CACHE_SECONDS, ...(ttls.length > 0 ? ttls : [NEGATIVE_CACHE_SECONDS]));
  const expiresAt = nowMs + ttl * 1000;
  if (addresses.length === 0) return { refusal: `refused: ${host} has no address in DNS`, expiresAt };
  const internal = addresses.find((record) => !isPublicAddress(record.data));
  if (internal !== undefined) {
    return { refusal: `refused: ${host} resolves to ${internal.data}, a private, loopback, link-local or otherwise non-public address`, expiresAt };
  }
  return { refusal: null, expiresAt };
}

/**
 * Refuses a delivery host whose DNS answer holds a non-public address, asked over DNS over HTTPS before
 * each delivery (answers cached for their TTL). The URL rules already refuse IP addresses and internal
 * names; this catches a public name pointing inside (`169.254.169.254.nip.io`, `localtest.me`). Every
 * address of the answer must be public, since the connection may use any of them.
 */
export async function refusedDestination(env: Env, host: string, now: Date): Promise<DestinationRefusal> {
  const name = host.toLowerCase().replace(/\.$/, "");
  const cached = verdicts.get(name, now.getTime());
  if (cached !== undefined) return cached;
  try {
    const verdict = await resolve(env.WEBHOOK_DNS_RESOLVER_URL || DEFAULT_DNS_RESOLVER_URL, name, now.getTime());
    if (verdict.expiresAt > now.getTime()) verdicts.set(name, verdict.refusal, { expiresAtMs: verdict.expiresAt });
    return verdict.refusal;
  } catch (error) {
    if (!(error instanceof ResolverUnavailable)) throw error;
    // Not cached: the next attempt asks again.
    return `DNS resolution failed for ${name}: ${error.message}`;
  }
}
